package run

import (
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// foldUnfolded commits st when its load applied calls an interrupted apply
// recorded that the stored state does not hold yet (backend.Unfolded): an
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

// showFolded tells view how many calls of an interrupted apply a commit
// just wrote into the stored state, when there were any.
func showFolded(view ApplyView, calls int) {
	if calls > 0 {
		view.Folded(calls)
	}
}
