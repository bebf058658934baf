package arguments

import (
	"time"

	"github.com/spf13/pflag"
)

// StateRm is the command line of `leadsync state rm`.
type StateRm struct {
	State       State
	Addresses   []string
	LockTimeout time.Duration
}

// StateRmFlags are the flags of state rm as given.
type StateRmFlags struct {
	State       State
	LockTimeout time.Duration
}

// Register declares the flags of state rm on fs.
func (fl *StateRmFlags) Register(fs *pflag.FlagSet) {
	registerLockTimeout(fs, &fl.LockTimeout)
	fl.State.Register(fs)
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
