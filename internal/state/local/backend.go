package local

import (
	"context"
	"time"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// localBackend adapts *Store to Backend (its Lock and OpenJournal return
// concrete types, which other code in the package relies on).
type localBackend struct{ *Store }

// Open returns the Backend of the state file at path (no workspaces: a
// file named with --state, or state push --from).
func Open(path string) backend.Backend { return localBackend{NewStore(path)} }

// AsBackend returns store as a Backend.
func (store *Store) AsBackend() backend.Backend { return localBackend{store} }

func (b localBackend) Lock(op string) (backend.Unlocker, error) {
	l, err := b.Store.Lock(op)
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (b localBackend) LockWait(ctx context.Context, op string, timeout time.Duration) (backend.Unlocker, error) {
	l, err := b.Store.LockWait(ctx, op, timeout)
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (b localBackend) OpenJournal(s *state.State) (backend.Recorder, error) {
	if b.db != nil {
		r, err := b.db.openJournal(s)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	j, err := b.Store.OpenJournal(s)
	if err != nil {
		return nil, err
	}
	return j, nil
}

func (b localBackend) Describe() string {
	if b.db != nil {
		return "state database " + b.Path()
	}
	return "state file " + b.Path()
}

var _ backend.Backend = localBackend{}
