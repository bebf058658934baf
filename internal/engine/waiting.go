package engine

import (
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// WaitProgress is an optional part of a Progress: a Progress that has it is
// told, from the run's goroutine like every other event, when a call waits
// before it is tried again (after a 429 or a failure that is retried), so
// that the display says what is being waited for.
type WaitProgress interface {
	Waiting(c Call, d time.Duration, reason string)
}

// AnswerProgress is an optional part of a Progress: a Progress that has
// it is told at once, from the run's goroutine, of an answer that came
// back, was paid for, and could be neither recorded nor kept anywhere
// (Failure.Unrecorded), so that it shows the answer before anything else
// can go wrong: it is the only copy left.
type AnswerProgress interface {
	Unrecorded(c Call, answer *state.Event, err error)
}

// waitEvent is a wait reported by a worker.
type waitEvent struct {
	call   Call
	d      time.Duration
	reason string
}

// reportWait passes a worker's wait to the run's goroutine without ever
// blocking the worker: when the buffer is full, the wait is not shown.
func (r *runner) reportWait(c Call, d time.Duration, reason string) {
	select {
	case r.waits <- waitEvent{c, d, reason}:
	default:
	}
}

// showWait hands a wait to the progress, if it shows waits.
func (r *runner) showWait(w waitEvent) {
	if wp, ok := r.progress.(WaitProgress); ok {
		wp.Waiting(w.call, w.d, w.reason)
	}
}

// drainWaits shows the waits reported so far; a worker reports its waits
// before its outcome, so this keeps waits before the call's end.
func (r *runner) drainWaits() {
	for {
		select {
		case w := <-r.waits:
			r.showWait(w)
		default:
			return
		}
	}
}
