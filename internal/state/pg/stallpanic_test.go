package pg

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/recovered"
)

// TestAPanicOfTheStallQuestionCutsTheWork: a panic while the stall watch
// asks the server (a bug, on the timer's goroutine) cuts the work, its
// context's cause holding the panic, which the work's error then carries
// to cli.Run's crash report.
func TestAPanicOfTheStallQuestionCutsTheWork(t *testing.T) {
	clock := &stepClock{}
	w := &stallWatch{limit: time.Minute, timer: clock.after,
		ask: func() (activity, error) { panic("a bug in the stall watch") }}
	ctx, _ := w.watch(context.Background(), "SELECT 1")
	defer w.end()
	clock.advance(time.Minute)
	p, ok := errors.AsType[*recovered.Panic](context.Cause(ctx))
	if !ok || p.Value != "a bug in the stall watch" || w.stalled() == nil {
		t.Fatalf("cause %v, stall %v: want the work cut by the panic", context.Cause(ctx), w.stalled())
	}
}
