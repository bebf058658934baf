package local

import (
	"fmt"
	"time"

	"github.com/leadsync/leadsync/internal/filelock"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// JournalError is returned by Load when the journal next to the state
// cannot be replayed. The journal records paid calls, so it is never removed
// or rewritten because of such an error.
type JournalError struct {
	Path   string
	Line   int
	Reason string
}

func (e *JournalError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	if e.Line > 0 {
		return fmt.Sprintf("journal %s cannot be replayed: %s. leadsync did not change it. "+
			"It holds calls an interrupted apply completed and paid for. Run leadsync state recover to keep every call recorded before line %d "+
			"and every whole line after it (the journal itself is kept aside, unchanged); only the calls of damaged lines may then be made again",
			where, e.Reason, e.Line)
	}
	return fmt.Sprintf("journal %s cannot be replayed: %s. leadsync did not change it. "+
		"It holds calls an interrupted apply completed and paid for; run  leadsync state recover  to keep what can be read of it (the journal itself is kept aside, unchanged)",
		where, e.Reason)
}

// LockedError is returned when another run holds the state lock.
type LockedError struct {
	Path string            // the lock file
	Info *backend.LockInfo // nil when the lock file cannot be read
	// Now is when the lock was found held, for the age in the message.
	Now time.Time
	// Workspace is the local workspace whose lock it is; "" for the
	// default one (force-unlock then needs no --workspace).
	Workspace string
}

func (e *LockedError) Error() string {
	if e.Info == nil || e.Info.ID == "" {
		if filelock.Supported {
			return fmt.Sprintf("the state is locked by another leadsync run, whose details in %s cannot be read yet (it is just starting?). "+
				"Wait for it to finish, or wait for the lock with --lock-timeout 5m", e.Path)
		}
		return fmt.Sprintf("the state is locked by %s, which cannot be read (damaged by a crash while locking?). "+
			"If no other leadsync runs on this state, delete that file", e.Path)
	}
	i := e.Info
	age := ""
	if !i.Created.IsZero() && !e.Now.IsZero() {
		age = " (" + textfmt.Age(e.Now.Sub(i.Created)) + " ago)"
	}
	msg := fmt.Sprintf("the state is locked by %s (pid %d) for %q since %s%s; lock ID %s.",
		i.Who, i.PID, i.Operation, i.Created.UTC().Format("2006-01-02 15:04:05 MST"), age, i.ID)
	unlock := "leadsync force-unlock " + i.ID
	if e.Workspace != "" {
		unlock = "leadsync --workspace " + e.Workspace + " force-unlock " + i.ID
	}
	return msg + fmt.Sprintf(" Wait for that run to finish; if it is gone without unlocking, remove the lock with\n  %s", unlock)
}
