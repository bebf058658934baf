package run

import (
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// foldUnfolded commits st when its load applied events an interrupted
// command recorded that the stored state does not hold yet (backend.Unfolded): an
// apply with nothing to do folds them in as one with calls does, and says
// so (view.Folded). Otherwise a kill during the write of a removal would
// leave the removed people in the rows, and every later command reading
// the whole state, until an apply made a call.
func foldUnfolded(d Deps, st *state.State, view ApplyView) error {
	if !backend.Unfolded(d.Backend) {
		return nil
	}
	calls := backend.UnfoldedCalls(d.Backend)
	if err := d.Backend.Commit(st); err != nil {
		return err
	}
	showFolded(view, calls)
	return nil
}

// showFolded tells view how many events of an interrupted command a
// commit just wrote into the stored state, when there were any.
func showFolded(view ApplyView, events int) {
	if events > 0 {
		view.Folded(events)
	}
}
