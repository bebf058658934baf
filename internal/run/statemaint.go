package run

import (
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// StatePush copies the state of from (a local state file) into to, whose
// lock d.Backend takes ("state push") around the copy. It returns the
// state pushed.
func StatePush(d Deps, from backend.Backend, to backend.Pusher, force bool) (*state.State, error) {
	s, err := from.Load()
	if err != nil {
		return nil, err
	}
	lock, err := lockState(d, "state push")
	if err != nil {
		return nil, err
	}
	defer lock.release()
	if err := to.Push(s, force); err != nil {
		return nil, err
	}
	return s, lock.release()
}

// StateRecover takes the state's lock ("state recover") and recovers the
// journal of r with the clock of d.
func StateRecover(d Deps, r backend.JournalRecoverer) (*backend.RecoverResult, error) {
	lock, err := lockState(d, "state recover")
	if err != nil {
		return nil, err
	}
	defer lock.release()
	return r.RecoverJournal(d.now())
}
