package run

import (
	"github.com/leadsync/leadsync/internal/state/backend"
)

// StatePush copies the state of from (a local state file) into to, whose
// lock d.Backend takes ("state push") around the copy. from is read as a
// backend.Stream, its people a batch at a time where its backend can, so
// that a state of millions of people is copied in bounded memory. It
// returns what was pushed.
func StatePush(d Deps, from backend.Backend, to backend.StreamPusher, force bool) (*backend.Pushed, error) {
	src, err := backend.OpenStream(from)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	lock, err := lockState(d, "state push")
	if err != nil {
		return nil, err
	}
	defer lock.release()
	pushed, err := to.PushStream(src, force)
	if err != nil {
		return nil, err
	}
	return pushed, lock.release()
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
