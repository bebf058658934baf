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
// recorded events are folded in later. After a failed Checkpoint the
// journal writes nothing more: the write may have committed.
type Checkpointer interface {
	Checkpoint(ctx context.Context) error
}

// MovesError is the error of a run stopped, before any call, by the
// failed write of its moves (Checkpointer). The moves are recorded; the
// run's state must not be written again (the write may have committed),
// and the next command folds the recorded moves in.
type MovesError struct{ Err error }

func (e *MovesError) Error() string {
	return fmt.Sprintf("writing the moves: %v; no call was made: the moves are recorded, and the next command writes them", e.Err)
}

func (e *MovesError) Unwrap() error { return e.Err }

// checkpoint writes the moves just recorded when the journal can. Any
// failure stops the run before its first call: the second interrupt (the
// run's context done), or a write that failed, whose outcome may be
// unknown. The move is recorded, and the next command folds it in.
func (r *runner) checkpoint() error {
	cp, ok := r.opts.Journal.(Checkpointer)
	if !ok {
		return nil
	}
	err := cp.Checkpoint(r.ctx)
	if err != nil && r.ctx.Err() != nil {
		return &MovesError{Err: r.ctx.Err()}
	}
	if err != nil {
		return &MovesError{Err: err}
	}
	return nil
}
