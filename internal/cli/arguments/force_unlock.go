package arguments

import (
	"errors"
	"strings"

	"github.com/spf13/pflag"
)

// ForceUnlock is the command line of `leadsync force-unlock`.
type ForceUnlock struct {
	State State
	// LockID is the ID of the lock to remove: a lock with another ID is
	// left alone.
	LockID string
	// Force removes it without asking.
	Force bool
}

// ForceUnlockFlags are the flags of force-unlock as given.
type ForceUnlockFlags struct {
	State State
	Force bool
}

// Register declares the flags of force-unlock on fs.
func (fl *ForceUnlockFlags) Register(fs *pflag.FlagSet) {
	fs.BoolVar(&fl.Force, "force", false, "do not ask for confirmation")
	fl.State.Register(fs)
}

// ParseForceUnlock checks the command line of force-unlock.
func ParseForceUnlock(fl ForceUnlockFlags, args []string) (*ForceUnlock, error) {
	id, err := exactlyOne("leadsync force-unlock", "LOCK_ID", args)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(id) == "" {
		return nil, errors.New(`force-unlock: LOCK_ID is empty; give the ID that the "state is locked" message (or leadsync show) prints`)
	}
	return &ForceUnlock{State: fl.State, LockID: id, Force: fl.Force}, nil
}
