package arguments

import (
	"time"

	"github.com/spf13/pflag"
)

// StateChangeFlags are the flags of the commands that change the state
// under its lock, state mv and state rm, as given: where the state is and
// how long to wait for its lock.
type StateChangeFlags struct {
	State       State
	LockTimeout time.Duration
}

// StateMvFlags are the flags of state mv as given.
type StateMvFlags = StateChangeFlags

// StateRmFlags are the flags of state rm as given.
type StateRmFlags = StateChangeFlags

// Register declares the flags of state mv or state rm on fs.
func (fl *StateChangeFlags) Register(fs *pflag.FlagSet) {
	registerLockTimeout(fs, &fl.LockTimeout)
	fl.State.Register(fs)
}
