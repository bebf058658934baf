package run

import (
	"errors"
	"fmt"

	"github.com/leadsync/leadsync/internal/state/backend"
)

// ErrNotLocked is returned by ForceUnlock when nobody holds the lock.
var ErrNotLocked = errors.New("the state is not locked: nothing to do")

// ErrForceUnlockCancelled is returned by ForceUnlock when the removal was
// not confirmed.
var ErrForceUnlockCancelled = errors.New("force-unlock cancelled: the lock stays")

// LockUnreadableError says that who holds the lock cannot be read (a
// damaged lock file).
type LockUnreadableError struct{ Err error }

func (e *LockUnreadableError) Error() string { return e.Err.Error() }
func (e *LockUnreadableError) Unwrap() error { return e.Err }

// LockIDMismatchError refuses to remove a lock other than the one named:
// one taken since must never be broken by mistake.
type LockIDMismatchError struct {
	Given string
	Held  *backend.LockInfo
}

func (e *LockIDMismatchError) Error() string {
	return fmt.Sprintf("lock ID %q does not match the lock held now (ID %s, by %s for %q): nothing was removed", e.Given, e.Held.ID, e.Held.Who, e.Held.Operation)
}

// ForceUnlockOptions are the inputs of one force-unlock.
type ForceUnlockOptions struct {
	// LockID is the ID of the lock to remove.
	LockID string
	// Confirm asks whether to remove the lock held as info says; nil
	// removes it without asking (--force).
	Confirm func(info *backend.LockInfo) (bool, error)
}

// ForceUnlockResult is what a ForceUnlock removed.
type ForceUnlockResult struct {
	// Lock is the lock removed, as it was held.
	Lock *backend.LockInfo
	// StillRunning: the run that held it was alive, and goes on without
	// the lock.
	StillRunning bool
}

// ForceUnlock removes the lock of l when its ID is opts.LockID and the
// removal is confirmed: nothing is removed when nobody holds the lock
// (ErrNotLocked), when its holder cannot be read (*LockUnreadableError),
// when another lock is held (*LockIDMismatchError) or when the answer is
// no (ErrForceUnlockCancelled).
func ForceUnlock(l backend.ForceUnlocker, opts ForceUnlockOptions) (*ForceUnlockResult, error) {
	info, err := l.LockHolder()
	if err != nil {
		return nil, &LockUnreadableError{Err: err}
	}
	if info == nil {
		return nil, ErrNotLocked
	}
	if info.ID != opts.LockID {
		return nil, &LockIDMismatchError{Given: opts.LockID, Held: info}
	}
	if opts.Confirm != nil {
		ok, err := opts.Confirm(info)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, ErrForceUnlockCancelled
		}
	}
	held, err := l.ForceUnlock(opts.LockID)
	if err != nil {
		return nil, err
	}
	return &ForceUnlockResult{Lock: info, StillRunning: held}, nil
}
