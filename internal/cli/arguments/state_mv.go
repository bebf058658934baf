package arguments

import (
	"time"

	"github.com/spf13/pflag"
)

// StateMv is the command line of `leadsync state mv`.
type StateMv struct {
	State State
	// From and To are addresses (run.StateMv checks them).
	From, To    string
	LockTimeout time.Duration
}

// StateMvFlags are the flags of state mv as given.
type StateMvFlags struct {
	State       State
	LockTimeout time.Duration
}

// Register declares the flags of state mv on fs.
func (fl *StateMvFlags) Register(fs *pflag.FlagSet) {
	registerLockTimeout(fs, &fl.LockTimeout)
	fl.State.Register(fs)
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
