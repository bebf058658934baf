package arguments

import "time"

// StateMv is the command line of `leadsync state mv`.
type StateMv struct {
	State State
	// From and To are addresses (run.StateMv checks them).
	From, To    string
	LockTimeout time.Duration
}

// ParseStateMv checks the command line of state mv.
func ParseStateMv(fl StateMvFlags, args []string) (*StateMv, error) {
	from, to, err := exactlyTwo("leadsync state mv", "FROM TO", args)
	if err != nil {
		return nil, err
	}
	if err := checkLockTimeout(fl.LockTimeout); err != nil {
		return nil, err
	}
	return &StateMv{State: fl.State, From: from, To: to, LockTimeout: fl.LockTimeout}, nil
}
