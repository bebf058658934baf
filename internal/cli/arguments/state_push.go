package arguments

import (
	"time"

	"github.com/spf13/pflag"
)

// StatePush is the command line of `leadsync state push`.
type StatePush struct {
	// Vars load the configuration, which names the backend pushed into
	// (and, without From, the state file pushed).
	Vars Vars
	// From is the local state file to push (relative to --chdir); "" for
	// the configuration's state_path.
	From string
	// Force replaces a workspace that holds state.
	Force       bool
	LockTimeout time.Duration
}

// StatePushFlags are the flags of state push as given.
type StatePushFlags struct {
	Vars        Vars
	From        string
	Force       bool
	LockTimeout time.Duration
}

// Register declares the flags of state push on fs.
func (fl *StatePushFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&fl.Force, "force", false, "replace a workspace that already holds state")
	fs.StringVar(&fl.From, "from", "", "push the state file at `PATH` instead of state_path")
	registerLockTimeout(fs, &fl.LockTimeout)
	fl.Vars.Register(fs)
}

// ParseStatePush checks the command line of state push.
func ParseStatePush(fl StatePushFlags, args []string) (*StatePush, error) {
	if err := noArgs("leadsync state push", args); err != nil {
		return nil, err
	}
	if err := checkLockTimeout(fl.LockTimeout); err != nil {
		return nil, err
	}
	return &StatePush{Vars: fl.Vars, From: fl.From, Force: fl.Force, LockTimeout: fl.LockTimeout}, nil
}
