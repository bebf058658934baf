package arguments

import "time"

// StateRm is the command line of `leadsync state rm`.
type StateRm struct {
	State       State
	Addresses   []string
	LockTimeout time.Duration
}

// ParseStateRm checks the command line of state rm.
func ParseStateRm(fl StateRmFlags, args []string) (*StateRm, error) {
	addrs, err := atLeastOne("leadsync state rm", "ADDRESS...", args)
	if err != nil {
		return nil, err
	}
	if err := checkLockTimeout(fl.LockTimeout); err != nil {
		return nil, err
	}
	return &StateRm{State: fl.State, Addresses: addrs, LockTimeout: fl.LockTimeout}, nil
}
