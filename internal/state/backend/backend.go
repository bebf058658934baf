package backend

import (
	"context"
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// Backend is where one workspace's state lives: the local state file with
// its journal and lock (internal/state/local, the default) or a shared
// database (internal/state/pg). The operations (internal/run) use only this
// interface and the abilities of abilities.go, so a backend plugs into one
// place.
//
// The life of an apply: Lock (or LockWait), Load, OpenJournal, one
// Recorder.Append per completed call (durable before it returns), Commit,
// then Unlock. Commands that only read (plan, show, export) call Load
// without the lock and must see a consistent snapshot while an apply runs.
// backendtest.Run checks all of it.
type Backend interface {
	// Load reads the state, with every call recorded by an interrupted
	// apply included. A backend with nothing stored yet returns an empty
	// state (state.New), not an error.
	Load() (*state.State, error)
	// Lock takes the state's lock for op ("apply", "state rm", ...) or
	// fails at once with an error naming the holder (see LockHolder).
	Lock(op string) (Unlocker, error)
	// LockWait is Lock that waits up to timeout for a holder to finish.
	LockWait(ctx context.Context, op string, timeout time.Duration) (Unlocker, error)
	// OpenJournal starts recording the calls of one apply that will change
	// s, which must come from Load while the caller holds the lock.
	OpenJournal(s *state.State) (Recorder, error)
	// Commit makes s (with everything recorded) the stored state.
	Commit(s *state.State) error
	// Describe names where the state is, for messages: "state file
	// .leadsync/state.json", "workspace \"uk\" in PostgreSQL".
	Describe() string
}

// Unlocker releases a held lock.
type Unlocker interface {
	Unlock() error
}

// Recorder records each completed call durably before it returns; the
// apply uses a result only after Append succeeded. Close ends the
// recording (Commit closes it too). An Append whose error has a
// Recorded() bool method returning true recorded the event all the same
// (the run must stop: pg's lost lock); any other error recorded nothing,
// and trying the same event again is safe.
type Recorder interface {
	Append(e *state.Event) error
	Close() error
}

// LockInfo is who holds a state's lock and why: what a refused run and
// `leadsync show` print.
type LockInfo struct {
	ID        string    `json:"id"`
	Operation string    `json:"operation"`
	Who       string    `json:"who"` // user@host
	Host      string    `json:"host"`
	PID       int       `json:"pid"`
	Created   time.Time `json:"created"`
	Version   string    `json:"leadsync_version"`
}

// LockedError is what a backend's refused Lock returns (each backend has
// its own type, with its own advice): another run holds the lock. Holder
// is nil when the holder's details cannot be read yet.
type LockedError interface {
	error
	Holder() *LockInfo
}

// RetryLock calls try until it takes a lock, fails with an error that held
// does not call a lock held by a live run, timeout has passed or ctx is
// done (then it returns the last such error). It waits 100 ms between tries
// at first, doubling up to about a second. Every backend's LockWait uses it.
func RetryLock[L any](ctx context.Context, timeout time.Duration, try func() (L, error), held func(error) bool) (L, error) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	delay := 100 * time.Millisecond
	for {
		l, err := try()
		if err == nil || !held(err) || timeout <= 0 {
			return l, err
		}
		var none L
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return none, err
		case <-deadline.C:
			t.Stop()
			return none, err
		case <-t.C:
		}
		if delay < time.Second {
			delay *= 2
		}
	}
}
