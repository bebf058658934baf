package pg

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A push's copy and a migration are not bound by the ten minutes of one
// operation (opCtx): 3,000,000 people took 5 minutes to push on a loaded
// machine, and a migration cut short would roll back and start again at
// every command. They are bound by their progress instead: each step (a
// statement, a batch of people written) must begin within the stall
// limit of the one before. A server that stops answering, or a lock
// another session holds, then ends the work with one error, its
// transaction rolled back, however long the work that makes progress.

// DefaultStallLimit is how long a step of a push or a migration may go
// on before the work is taken to be stalled. The longest step measured
// is the statement of the migration to schema 15 that rewrote every
// person's row: less than the migration's 178 s on 3,000,000 people at
// load 10–15.
const DefaultStallLimit = 5 * time.Minute

// stallTimer calls f once d has passed, unless the function it returns
// (stop) is called first: time.AfterFunc, or a test's clock.
type stallTimer func(d time.Duration, f func()) (stop func() bool)

func realTimer(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// stallWatch cancels its context once no step has begun for its limit.
type stallWatch struct {
	cancel context.CancelCauseFunc
	limit  time.Duration
	timer  stallTimer
	conn   *pgconn.PgConn // the work's connection

	mu    sync.Mutex
	gen   int // which arming of the timer is current
	stop  func() bool
	step  string // the step under way
	ended bool
	cut   *stallError // the stall that ended the work, if one did
}

type stallKey struct{}

// watchStalls returns ctx without its deadline, cancelled once no step
// began within the backend's stall limit (a *stallError its cause), and
// the watch (its end ends the timer). The work runs on c: a stall asks
// the server to cancel its statement there.
func (b *Backend) watchStalls(ctx context.Context, c *pgx.Conn, first string) (context.Context, *stallWatch) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	w := &stallWatch{cancel: cancel, limit: b.opts.StallLimit, timer: b.stallTimer, conn: c.PgConn()}
	if w.limit <= 0 {
		w.limit = DefaultStallLimit
	}
	if w.timer == nil {
		w.timer = realTimer
	}
	w.progress(first)
	return context.WithValue(ctx, stallKey{}, w), w
}

// progress says that step begins: it has the whole limit.
func (w *stallWatch) progress(step string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return
	}
	if w.stop != nil {
		w.stop()
	}
	w.gen++
	gen := w.gen
	w.step = step
	w.stop = w.timer(w.limit, func() { w.fire(gen) })
}

// fire cancels the work when the timer's arming gen is still the current
// one (a timer stopped too late does not count). The server is asked to
// cancel the statement first: one waiting for a lock stops there, and
// its transaction's locks are released at once. Only closing the
// connection, as the context's end does, the server would notice no
// earlier than when the lock is granted.
func (w *stallWatch) fire(gen int) {
	w.mu.Lock()
	stalled := !w.ended && gen == w.gen
	if stalled {
		w.ended, w.cut = true, &stallError{limit: w.limit, step: w.step}
	}
	w.mu.Unlock()
	if !stalled {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cancelRequestLimit)
	defer cancel()
	w.conn.CancelRequest(ctx) // a server that does not answer: the context's end closes the connection
	w.cancel(w.cut)
}

// stalled returns the stall that ended the work, nil when none did.
func (w *stallWatch) stalled() *stallError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cut
}

// cancelRequestLimit is how long a stalled work's cancel request may
// take (a server that stopped answering may never take it).
const cancelRequestLimit = 10 * time.Second

// end ends the watch: its timer stops and its context is cancelled.
func (w *stallWatch) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop != nil {
		w.stop()
	}
	w.ended = true
	w.cancel(nil)
}

// progressed tells the watch of ctx, if any, that step begins.
func progressed(ctx context.Context, step string) {
	if w, ok := ctx.Value(stallKey{}).(*stallWatch); ok {
		w.progress(step)
	}
}

// stallError says which step of a work went on past the stall limit.
type stallError struct {
	limit time.Duration
	step  string
}

func (e *stallError) Error() string {
	return fmt.Sprintf("no progress for %s (PostgreSQL did not finish %s): the server stopped answering, or another session holds a lock this needs", e.limit, e.step)
}

// committing says the work stalled in its COMMIT, whose outcome is then
// unknown.
func (e *stallError) committing() bool { return strings.EqualFold(e.step, "commit") }

// stalled returns the error of a work w watched (doing) that failed with
// err: when w cut it, the stall and what became of the work (undone: its
// transaction rolled back), else err as it is. The server's answer to
// the cancel may come before the work's context ends: w says.
func (b *Backend) stalled(w *stallWatch, err error, doing, undone string) error {
	se := w.stalled()
	if err == nil || se == nil {
		return err
	}
	if se.committing() {
		undone = "whether it was committed is unknown: read the workspace (leadsync state list) before doing it again"
	}
	return b.wrap(doing, fmt.Errorf("%w; %s", se, undone))
}

// quoteStep names a statement for the stall's message: its first words,
// its spaces collapsed.
func quoteStep(sql string) string {
	const most = 80
	s := strings.Join(strings.Fields(sql), " ")
	if len(s) > most {
		s = s[:most] + "…"
	}
	return s
}

// stallTracer tells the watch of a statement's context that the
// statement begins (pgx calls it for every statement of a pgx.Conn; a
// caller of the PgConn below calls progressed itself).
type stallTracer struct{}

var (
	_ pgx.QueryTracer    = stallTracer{}
	_ pgx.CopyFromTracer = stallTracer{}
)

func (stallTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	progressed(ctx, quoteStep(d.SQL))
	return ctx
}

func (stallTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (stallTracer) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceCopyFromStartData) context.Context {
	progressed(ctx, quoteStep("COPY "+d.TableName.Sanitize()))
	return ctx
}

func (stallTracer) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}
