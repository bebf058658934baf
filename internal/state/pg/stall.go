package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/leadsync/leadsync/internal/recovered"
)

// A push's copy and a migration are not bound by the ten minutes of one
// operation (opCtx): 3,000,000 people took 5 minutes to push on a loaded
// machine, and a migration cut short would roll back and start again at
// every command. They are bound by their progress instead: each step (a
// statement, a batch of people written) must begin within the stall
// limit of the one before. When it does not, the server is asked, on a
// connection of its own opened when the watch is armed and kept (probe:
// a server full since still answers), what the work's session is doing
// (activity). A statement it is running goes on, however long (the row
// rewrite of a migration), and so does a step when the server refuses
// the question's connection, opened again after it died, unless it
// refused the question before too. So, once a
// step, does a session idle for less than betweenStepsGrace: its client
// is between two steps, and the limit came before the next began. One waiting for a lock another session
// holds, a session idle for longer (or still idle a limit later), or a
// server that does not answer the question ends the work with one
// error, its transaction rolled back. A statement the server runs while
// it waits for its client (a COPY's rows) is taken as a session idle
// for less than the grace: one more limit, then cut.

// DefaultStallLimit is how long a step of a push or a migration may go
// on before the server is asked whether it is still running it. The
// longest step measured is the statement of the migration to schema 15
// that rewrote every person's row: less than the migration's 178 s on
// 3,000,000 people at load 10–15; a longer one goes on while PostgreSQL
// runs it.
const DefaultStallLimit = 5 * time.Minute

// betweenStepsGrace is how recently a session idle at the stall limit
// must have left its last statement to be taken for a client between
// two steps (preparing the next batch), not one that stopped. It covers
// the question and a loaded client's pause between two statements; it
// is a tenth of DefaultStallLimit. The question takes at most probeLimit
// to fail on the kept connection, then the close of that connection
// (probeLimit at most), then probeLimit for a new connection and its
// query.
const betweenStepsGrace = 30 * time.Second

// stallTimer calls f once d has passed, unless the function it returns
// (stop) is called first: time.AfterFunc, or a test's clock.
type stallTimer func(d time.Duration, f func()) (stop func() bool)

func realTimer(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// stallWatch cancels its context once a step has gone on for its limit
// and the server is not running it.
type stallWatch struct {
	cancel context.CancelCauseFunc
	limit  time.Duration
	grace  time.Duration // betweenStepsGrace, unless a test's
	timer  stallTimer
	now    func() time.Time // time.Now, unless a test's: how long ask took
	// ask asks the server what the work's session is doing; done, when
	// set, ends what ask holds (its connection) once the watch ends.
	ask    func() (activity, error)
	done   func()
	firing sync.WaitGroup // the timer's calls of fire under way

	mu    sync.Mutex
	gen   int // which arming of the timer is current
	stop  func() bool
	step  string // the step under way: its SQL
	began int    // the arming (gen) the step under way began with
	// graced says the step under way was given one more limit, its
	// session found between two steps.
	graced bool
	// refused says the last question of the step under way was refused
	// (errProbeRefused).
	refused bool
	ended   bool
	cut     *stallError // the stall that ended the work, if one did
}

type stallKey struct{}

// watchStalls returns ctx without its deadline, cancelled once a step has
// gone on for the backend's stall limit and the server is not running it
// (a *stallError its cause), and the watch (its end ends the timer). The
// work runs on c: the server is asked about c's session.
//
// The context's end closes c, and pgx then asks the server to cancel the
// statement under way (PgConn.asyncClose's CancelRequest): one waiting
// for a lock stops there, and its transaction's locks are released at
// once. By the closed connection alone, the server would notice no
// earlier than when the lock is granted. TestAStalledPushIsRolledBack
// fails if pgx stops doing so.
func (b *Backend) watchStalls(ctx context.Context, c *pgx.Conn, first string) (context.Context, *stallWatch) {
	p := b.newProbe(c.PgConn().PID())
	w := &stallWatch{
		limit: b.stallLimit(),
		grace: betweenStepsGrace,
		timer: b.stallTimer,
		ask:   p.ask,
		done:  p.close,
	}
	return w.watch(ctx, first)
}

// stallLimit is the backend's stall limit: DefaultStallLimit unless its
// options say.
func (b *Backend) stallLimit() time.Duration {
	if b.opts.StallLimit > 0 {
		return b.opts.StallLimit
	}
	return DefaultStallLimit
}

// watch starts w on its first step: it returns ctx without its deadline,
// cancelled by w.
func (w *stallWatch) watch(ctx context.Context, first string) (context.Context, *stallWatch) {
	ctx, w.cancel = context.WithCancelCause(context.WithoutCancel(ctx))
	if w.timer == nil {
		w.timer = realTimer
	}
	if w.now == nil {
		w.now = time.Now
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
	w.step, w.graced, w.refused = step, false, false
	w.arm()
	w.began = w.gen
}

// arm starts the timer of the step under way for a whole limit. The
// caller holds w.mu.
func (w *stallWatch) arm() {
	if w.stop != nil {
		w.stop()
	}
	w.gen++
	gen := w.gen
	w.stop = w.timer(w.limit, func() { w.fire(gen) })
}

// fire is the end of the timer's arming gen: unless a step began since
// (a timer stopped too late does not count), the server is asked what
// the work's session is doing. A statement it runs, or a step whose
// session is between two statements (once), is given another limit;
// otherwise the work is cut.
func (w *stallWatch) fire(gen int) {
	if !w.firingNow(gen) {
		return
	}
	defer w.firing.Done()
	var act activity
	asked := w.now()
	err := recovered.Call(func() (err error) { act, err = w.ask(); return err }) // a panic cuts the work
	took := w.now().Sub(asked)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended || gen != w.gen {
		return
	}
	if w.goesOn(act, err) {
		w.arm()
		return
	}
	w.cutNow(act, err, took)
}

// goesOn says whether the step under way is given another limit, by
// what the server said of its session (act, or the question's err), and
// notes a grace it gives between two steps. The caller holds w.mu.
func (w *stallWatch) goesOn(act activity, err error) bool {
	refusedBefore := w.refused
	w.refused = errors.Is(err, errProbeRefused)
	switch {
	case w.refused:
		// Not known: a server that refuses the question's connection
		// answers, and a statement it runs may be making progress (a
		// long migration on a full server). Refused again a limit
		// later, no step begun, it would let a stalled session run
		// forever: cut.
		return !refusedBefore
	case err != nil:
		return false
	case act.running():
		// Progress since any grace: a later wait may have one again.
		w.graced = false
		return true
	case !w.graced && (act.betweenSteps(w.grace) || act.waitsForClient()):
		// The client was between two steps when the limit came, or
		// sending a COPY's rows: the next step may begin at once. Still
		// idle (or waited for) at the next limit, no step begun, it has
		// stopped.
		w.graced = true
		return true
	}
	return false
}

// firingNow says whether the arming gen is still current, and counts
// its fire as under way (end waits for it) when it is.
func (w *stallWatch) firingNow(gen int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended || gen != w.gen {
		return false
	}
	w.firing.Add(1)
	return true
}

// cutNow ends the work at its step: the stall recorded and its context
// cancelled at once, so that no later step (its COMMIT) is sent once the
// stall names this one. askErr is the question's error, took how long
// the question went on. The caller holds w.mu.
func (w *stallWatch) cutNow(act activity, askErr error, took time.Duration) {
	why := act.why()
	switch {
	case w.refused:
		why = fmt.Sprintf("the server refused twice, a limit apart, to say what it was doing (%v)", askErr)
	case askErr != nil:
		why = fmt.Sprintf("the server did not say what it was doing: its question failed after %s (%v)", took.Round(time.Millisecond), askErr)
	}
	limits := time.Duration(w.gen - w.began + 1) // the limits the step has gone on for
	w.ended, w.cut = true, &stallError{limit: limits * w.limit, step: w.step, why: why}
	if _, bug := errors.AsType[*recovered.Panic](askErr); bug {
		w.cut.bug = askErr
	}
	w.cancel(w.cut)
}

// stalled returns the stall that ended the work, nil when none did.
func (w *stallWatch) stalled() *stallError {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cut
}

// end ends the watch: its timer stops and its context is cancelled. It
// returns once a fire under way has returned (its question), and what
// the questions held is let go (done).
func (w *stallWatch) end() {
	w.mu.Lock()
	if w.stop != nil {
		w.stop()
	}
	w.ended = true
	w.cancel(nil)
	w.mu.Unlock()
	w.firing.Wait()
	if w.done != nil {
		w.done()
	}
}

// progressed tells the watch of ctx, if any, that step begins.
func progressed(ctx context.Context, step string) {
	if w := watchOf(ctx); w != nil {
		w.progress(step)
	}
}

// watchOf returns the watch of ctx, nil when it has none.
func watchOf(ctx context.Context) *stallWatch {
	w, _ := ctx.Value(stallKey{}).(*stallWatch)
	return w
}

// stallError says which step of a work went on past the stall limit, and
// why it was cut.
type stallError struct {
	limit time.Duration // how long the step went on: its limits
	step  string        // its SQL
	why   string        // what the server said of it
	// bug is the question's panic (a *recovered.Panic): the work's error
	// is then an internal error of leadsync (cli.Run's crash).
	bug error
}

// Unwrap is the question's panic, if it panicked.
func (e *stallError) Unwrap() error { return e.bug }

func (e *stallError) Error() string {
	return fmt.Sprintf("no progress for %s (PostgreSQL did not finish %s): %s", e.limit, quoteStep(e.step), e.why)
}

// committing says the work stalled in its COMMIT, whose outcome is then
// unknown.
func (e *stallError) committing() bool { return strings.EqualFold(strings.TrimSpace(e.step), "commit") }

// stallWords are what the error of a stalled work says of it.
type stallWords struct {
	doing   string // what the work was doing: "pushing the state"
	undone  string // what became of it, its transaction rolled back
	unknown string // what to do when the stall was in its COMMIT
}

// stalled returns the error of a work w watched that failed with err:
// when w cut it, the stall and what became of the work, else err as it
// is. The server's answer to the cancel may come before the work's
// context ends: w says.
func (b *Backend) stalled(w *stallWatch, err error, words stallWords) error {
	se := w.stalled()
	if err == nil || se == nil {
		return err
	}
	undone := words.undone
	if se.committing() {
		undone = words.unknown
	}
	return b.wrap(words.doing, fmt.Errorf("%w; %s", se, undone))
}

// quoteStep names a statement for the stall's message: its first 80
// bytes, its spaces collapsed, never cut inside a character.
func quoteStep(sql string) string {
	const most = 80
	s := strings.Join(strings.Fields(sql), " ")
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// stallTracer tells the watch of a statement's context that the
// statement begins (pgx calls it for every statement of a pgx.Conn; a
// caller of the PgConn below calls progressed itself). Without a watch
// it costs nothing.
type stallTracer struct{}

var (
	_ pgx.QueryTracer    = stallTracer{}
	_ pgx.CopyFromTracer = stallTracer{}
)

func (stallTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	progressed(ctx, d.SQL)
	return ctx
}

func (stallTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (stallTracer) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceCopyFromStartData) context.Context {
	if w := watchOf(ctx); w != nil {
		w.progress("COPY " + d.TableName.Sanitize())
	}
	return ctx
}

func (stallTracer) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}
