package engine

import (
	"context"
	"fmt"
)

// Checkpointer is a Journal that writes what the events recorded so far
// changed, with no event: the moves an apply records first are written
// before its first call (a partial state's renames of every person a
// moved block found: state.Changes.Renames), not with its first result.
// A ctx done stops the write, which leaves the state as it was; the
// recorded events are folded in later.
type Checkpointer interface {
	Checkpoint(ctx context.Context) error
}

// checkpoint writes the moves just recorded when the journal can. The
// second interrupt (the run's context done) stops it, and the run: the
// move is recorded, and the next command folds it in. Another failure
// leaves the changes to the next write, with the first result.
func (r *runner) checkpoint() error {
	cp, ok := r.opts.Journal.(Checkpointer)
	if !ok {
		return nil
	}
	err := cp.Checkpoint(r.ctx)
	if err != nil && r.ctx.Err() != nil {
		return fmt.Errorf("writing the moves: %w", r.ctx.Err())
	}
	return nil
}
