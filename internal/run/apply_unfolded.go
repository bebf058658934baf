package run

import (
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// foldUnfolded commits st when its load applied calls an interrupted apply
// recorded that the stored state does not hold yet (backend.Unfolded): an
// apply with nothing to do folds them in as one with calls does. Otherwise
// a kill during the write of a removal would leave the removed people in
// the rows, and every later command reading the whole state, until an
// apply made a call.
func foldUnfolded(d Deps, st *state.State) error {
	if !backend.Unfolded(d.Backend) {
		return nil
	}
	return d.Backend.Commit(st)
}
