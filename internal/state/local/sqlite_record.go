package local

import (
	"context"
	"fmt"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// dbRecorder records each completed call in its own transaction.
type dbRecorder struct {
	d      *dbStore
	s      *state.State
	id     string
	seq    uint64
	closed bool
	failed bool // a Checkpoint failed: nothing more is written
}

// Append commits e before it returns, with the rows the calls before it
// changed (the caller folds each call into the state after Append
// returned): a killed apply loses no completed call, the next load applies
// the recorded events the rows do not hold yet. Appending the same event
// again after an error is safe.
func (r *dbRecorder) Append(e *state.Event) error {
	if err := e.Validate(); err != nil {
		return err
	}
	d := r.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if r.closed {
		return fmt.Errorf("the recording of %s is closed", d.path)
	}
	e.Seq = r.seq + 1
	if _, err := d.flush(r.s, sqlstate.FlushOpts{Event: e, Journal: r.id}); err != nil {
		e.Seq = 0
		return err
	}
	r.seq++
	return nil
}

// Close writes what the recorded calls changed and ends the recording.
// Every appended event must have been folded into the state.
func (r *dbRecorder) Close() error { return r.CloseContext(context.Background()) }

// CloseContext is Close whose write stops when ctx is done (a second
// interrupt): the recording ends, the rows as they were, and the
// recorded calls are left for the next command to fold in.
func (r *dbRecorder) CloseContext(ctx context.Context) error { return r.flushOwn(ctx, true) }

// Checkpoint writes what the recorded calls changed, and folds them in,
// without ending the recording (engine.Checkpointer); ctx done stops it
// and writes nothing. After it failed, the recording writes nothing more
// (errCheckpointFailed).
func (r *dbRecorder) Checkpoint(ctx context.Context) error { return r.flushOwn(ctx, false) }

// flushOwn writes what the recorded calls changed and folds them in; end
// ends the recording. A failed Checkpoint ends it too, with nothing
// more written: its write may have committed (an unknown outcome), and
// its renames written twice would swap moved blocks back. The recorded
// calls stay for the next command to fold in.
func (r *dbRecorder) flushOwn(ctx context.Context, end bool) error {
	d := r.d
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case r.closed && end:
		return nil
	case r.closed:
		return fmt.Errorf("the recording of %s is closed", d.path)
	}
	r.closed = end
	_, err := d.flushCtx(ctx, r.s, sqlstate.FlushOpts{FoldOwn: true, Journal: r.id})
	if err != nil && !end {
		r.closed, r.failed = true, true
	}
	return err
}

// errCheckpointFailed refuses to commit a state whose recording's
// Checkpoint failed: its write may have committed.
func errCheckpointFailed(where string) error {
	return fmt.Errorf("%s: the write of the moves failed, so this run writes nothing more; the next command folds its recorded calls in", where)
}
