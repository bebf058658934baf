package views

import (
	"fmt"
	"io"
	"time"

	"github.com/leadsync/leadsync/internal/state/backend"
)

// ForceUnlock is the view of `leadsync force-unlock`: the lock removed on
// Out; the question and the warning on ErrOut.
type ForceUnlock struct{ out, errOut io.Writer }

// NewForceUnlock returns the view of force-unlock.
func NewForceUnlock(out, errOut io.Writer) ForceUnlock { return ForceUnlock{out, errOut} }

// Removed says which lock was removed and, when its run was still
// running, warns that it goes on without the lock.
func (v ForceUnlock) Removed(info *backend.LockInfo, stillRunning bool) error {
	if _, err := fmt.Fprintf(v.out, "Removed the state lock %s (held by %s for %q).\n", info.ID, info.Who, info.Operation); err != nil {
		return err
	}
	if stillRunning {
		fmt.Fprintf(v.errOut, "Warning: that run (pid %d on %s) was still running and goes on without the lock: stop it before the next apply, or two runs may pay for the same calls.\n", info.PID, info.Host)
	}
	return nil
}

// Ask says who holds the lock since when (now is the clock) and asks
// whether to remove it; the answer is read by the caller.
func (v ForceUnlock) Ask(info *backend.LockInfo, now time.Time) {
	fmt.Fprintf(v.errOut, "The lock is held by %s (pid %d) for %q since %s.\n", info.Who, info.PID, info.Operation, When(info.Created, now))
	fmt.Fprintf(v.errOut, "Remove it only if that run is gone. Remove it? Only 'yes' is accepted: ")
}

// InputEnded ends the question's line when input ended without a
// newline (Ctrl-D).
func (v ForceUnlock) InputEnded() { fmt.Fprintln(v.errOut) }
