package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/state"
)

// checkpointJournal is a memJournal that can write what it recorded
// (engine.Checkpointer): it notes how many events it held then, and,
// with hold, waits for the run's context to end, as a long write that
// the second interrupt stops.
type checkpointJournal struct {
	memJournal
	hold    bool
	fail    error // what Checkpoint returns
	started chan struct{}
	at      []int
}

func (j *checkpointJournal) Checkpoint(ctx context.Context) error {
	j.at = append(j.at, len(j.events))
	if !j.hold {
		return j.fail
	}
	close(j.started)
	<-ctx.Done()
	return ctx.Err()
}

const movedConfig = `
api {
  sandbox = true
}
search "a" {
  keywords = "alpha"
}
search "b" {
  keywords = "beta"
}
moved {
  from = search.x
  to   = search.a
}
`

// movedState holds search.x's records, which the moved block moves to
// search.a.
func movedState(t *testing.T) *state.State {
	t.Helper()
	cfg := load(t, "api {\n  sandbox = true\n}\nsearch \"x\" {\n  keywords = \"alpha\"\n}\n")
	st := state.New()
	run(t, cfg, st, build(t, cfg, st), newFake(), &memJournal{}, nil)
	return st
}

// TestMovesAreWrittenBeforeTheFirstCall: an apply writes the moves it
// records first (Checkpointer) before it starts a call, so that the
// first result does not wait for them.
func TestMovesAreWrittenBeforeTheFirstCall(t *testing.T) {
	cfg := load(t, movedConfig)
	st := movedState(t)
	svc := newFake()
	j := &checkpointJournal{}
	sum := run(t, cfg, st, build(t, cfg, st), svc, j, nil)
	if len(sum.Moved) != 1 || len(svc.calls) != 1 {
		t.Fatalf("moved %v, calls %v: want one move and one call", sum.Moved, svc.calls)
	}
	if len(j.at) != 1 || j.at[0] != 1 {
		t.Errorf("checkpoints after %v events, want one after the move alone", j.at)
	}
}

// TestSecondInterruptStopsWritingTheMoves: the second interrupt (the
// run's context cancelled) while the moves are written stops the write
// and the run: the move is recorded, no call is started.
func TestSecondInterruptStopsWritingTheMoves(t *testing.T) {
	cfg := load(t, movedConfig)
	st := movedState(t)
	svc := newFake()
	j := &checkpointJournal{hold: true, started: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := engine.Run(ctx, engine.Options{Config: cfg, Plan: build(t, cfg, st), State: st, Journal: j, Service: svc,
			Now: func() time.Time { return t0 }})
		done <- err
	}()
	select {
	case <-j.started:
	case err := <-done:
		t.Fatalf("the run ended (%v) without writing the moves", err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("run: %v, want it stopped by the interrupt", err)
	}
	if len(svc.calls) != 0 {
		t.Errorf("calls started: %v", svc.calls)
	}
	if len(j.events) != 1 || j.events[0].Kind != state.EventMove || st.Searches["search.a"] == nil {
		t.Errorf("the move is not recorded and folded: %d events", len(j.events))
	}
}

// TestFailedWriteOfTheMovesStopsTheRun: a write of the moves that fails
// (Checkpointer), whatever the cause, stops the run before any call with
// one error naming it; the move stays recorded.
func TestFailedWriteOfTheMovesStopsTheRun(t *testing.T) {
	cfg := load(t, movedConfig)
	st := movedState(t)
	svc := newFake()
	cause := errors.New("disk I/O error")
	j := &checkpointJournal{fail: cause}
	_, err := engine.Run(context.Background(), engine.Options{Config: cfg, Plan: build(t, cfg, st), State: st, Journal: j, Service: svc,
		Now: func() time.Time { return t0 }})
	var moves *engine.MovesError
	if !errors.As(err, &moves) || !errors.Is(err, cause) || !strings.HasPrefix(err.Error(), "writing the moves: disk I/O error") {
		t.Fatalf("run: %v, want it stopped by the failed write of the moves", err)
	}
	if len(svc.calls) != 0 {
		t.Errorf("calls started after the failed write: %v", svc.calls)
	}
	if len(j.events) != 1 || j.events[0].Kind != state.EventMove {
		t.Errorf("the move is not recorded: %d events", len(j.events))
	}
}
