package run

import (
	"time"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// Pusher is a workspace that takes a whole state (a workspace of the pg
// backend, or of the local one: local.Workspace).
type Pusher interface {
	// Push stores s as the workspace's state, keeping its lineage; a
	// workspace that holds state is refused unless force.
	Push(s *state.State, force bool) error
}

// StatePush copies the state of from (a local state file) into to, whose
// lock d.Backend takes ("state push") around the copy. It returns the
// state pushed.
func StatePush(d Deps, from backend.Backend, to Pusher, force bool) (*state.State, error) {
	s, err := from.Load()
	if err != nil {
		return nil, err
	}
	u, err := d.Backend.Lock("state push")
	if err != nil {
		return nil, err
	}
	lock := &heldLock{u: u}
	defer lock.release()
	if err := to.Push(s, force); err != nil {
		return nil, err
	}
	return s, lock.release()
}

// JournalRecoverer folds the readable part of a damaged journal into the
// state (the local state file; a database records each call in a
// transaction and has no journal).
type JournalRecoverer interface {
	RecoverJournal(now time.Time) (*backend.RecoverResult, error)
}

// StateRecover takes the state's lock ("state recover") and recovers the
// journal of r with the clock of d.
func StateRecover(d Deps, r JournalRecoverer) (*backend.RecoverResult, error) {
	u, err := d.Backend.Lock("state recover")
	if err != nil {
		return nil, err
	}
	lock := &heldLock{u: u}
	defer lock.release()
	return r.RecoverJournal(d.now())
}
