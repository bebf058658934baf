package state

import (
	"context"
	"time"
)

// Backend is where one workspace's state lives: the local state file with
// its journal and lock (*Store, the default) or a shared database. The plan
// and apply operations use only this interface, so a backend plugs into
// one place.
//
// The life of an apply: Lock (or LockWait), Load, OpenJournal, one
// Recorder.Append per completed call (durable before it returns), Commit,
// then Unlock. Commands that only read (plan, show, export) call Load
// without the lock and must see a consistent snapshot while an apply runs.
type Backend interface {
	// Load reads the state, with every call recorded by an interrupted
	// apply included. A backend with nothing stored yet returns an empty
	// state (New), not an error.
	Load() (*State, error)
	// Lock takes the state's lock for op ("apply", "state rm", ...) or
	// fails at once with a *LockedError naming the holder.
	Lock(op string) (Unlocker, error)
	// LockWait is Lock that waits up to timeout for a holder to finish.
	LockWait(ctx context.Context, op string, timeout time.Duration) (Unlocker, error)
	// OpenJournal starts recording the calls of one apply that will change
	// s, which must come from Load while the caller holds the lock.
	OpenJournal(s *State) (Recorder, error)
	// Commit makes s (with everything recorded) the stored state.
	Commit(s *State) error
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
// recording (Commit closes it too).
type Recorder interface {
	Append(e *Event) error
	Close() error
}

// localBackend adapts *Store to Backend (its Lock and OpenJournal return
// concrete types, which other code in the package relies on).
type localBackend struct{ *Store }

// Local returns the Backend of the state file at path.
func Local(path string) Backend { return localBackend{NewStore(path)} }

// AsBackend returns store as a Backend.
func (store *Store) AsBackend() Backend { return localBackend{store} }

func (b localBackend) Lock(op string) (Unlocker, error) {
	l, err := b.Store.Lock(op)
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (b localBackend) LockWait(ctx context.Context, op string, timeout time.Duration) (Unlocker, error) {
	l, err := b.Store.LockWait(ctx, op, timeout)
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (b localBackend) OpenJournal(s *State) (Recorder, error) {
	j, err := b.Store.OpenJournal(s)
	if err != nil {
		return nil, err
	}
	return j, nil
}

func (b localBackend) Describe() string { return "state file " + b.Path() }

var _ Backend = localBackend{}
