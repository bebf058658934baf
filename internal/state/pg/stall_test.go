package pg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// A push --force that waits for a lock another session holds on the
// workspace's people (a real PostgreSQL lock, not a fake) ends once its
// step goes on past the stall limit, on a clock of the test's: one error
// that names the lock's holder and says that nothing was written, the
// workspace and its keys as they were, and the push's session no longer
// waiting (the server cancelled its statement). Once the lock is
// released, the push succeeds.
func TestAStalledPushIsRolledBack(t *testing.T) {
	cs := testConnStr(t)
	b, clock := clockedPG(t, cs)
	schema := b.schema
	first := backendtest.ManyPeople(t, 300)
	mustNoErr(t, b.Push(first, false), "push the first state")
	oids, _ := keysToPeople(t, cs, schema)

	release, holder := holdLock(t, cs, `LOCK TABLE `+schema+`.people IN EXCLUSIVE MODE`)
	second := backendtest.ManyPeople(t, 400)
	done := start(func() error { return b.Push(second, true) })
	waitForWaiters(t, cs, holder, true)
	clock.advance(time.Minute)
	err := returnsOrRelease(t, b, release, done)
	var se *stallError
	if !errors.As(err, &se) {
		t.Fatalf("push past the stall limit: %v, want the stall", err)
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{"no progress for 1m0s", schema, fmt.Sprintf("for a lock held by PID %d;", holder), "nothing was written"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the stall's error %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "context") {
		t.Errorf("the stall's error %q speaks of Go's context", msg)
	}
	waitForWaiters(t, cs, holder, false)
	got, err := newPG(t, cs, schema, "", bob).Load()
	mustNoErr(t, err, "load")
	if !backendtest.SameCanon(t, got, first) {
		t.Error("the stalled push changed the workspace")
	}
	if oids2, _ := keysToPeople(t, cs, schema); !slices.Equal(oids2, oids) {
		t.Errorf("keys to people after the stalled push: oids %v, want %v", oids2, oids)
	}

	release()
	mustNoErr(t, b.Push(second, true), "push once the lock is released")
	got, err = newPG(t, cs, schema, "", bob).Load()
	mustNoErr(t, err, "load")
	if !backendtest.SameCanon(t, got, second) {
		t.Error("the push after the lock's release differs")
	}
}

// holdLock runs lock in a transaction of a session of its own, and
// returns what ends it (once; at the test's end at the latest) and the
// session's PID.
func holdLock(t *testing.T, cs, lock string) (release func(), pid uint32) {
	t.Helper()
	ctx := context.Background()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect the lock's session")
	tx, err := c.Begin(ctx)
	mustNoErr(t, err, "begin the lock's transaction")
	_, err = tx.Exec(ctx, lock)
	mustNoErr(t, err, "lock")
	release = sync.OnceFunc(func() {
		tx.Rollback(ctx)
		c.Close(ctx)
	})
	t.Cleanup(release)
	return release, c.PgConn().PID()
}

// waitForWaiters returns once leadsync's sessions waiting for a lock the
// session holder holds are some (waiting) or none. A minute without
// fails the test: none that waits once its work was cut is the server's
// cancel of its statement (the closed connection alone would not end
// the wait).
func waitForWaiters(t *testing.T, cs string, holder uint32, waiting bool) {
	t.Helper()
	pollUntil(t, cs, fmt.Sprintf("leadsync's sessions waiting for the lock of PID %d are some (%t)", holder, waiting),
		`SELECT (count(*) > 0) = $2 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
			WHERE NOT l.granted AND a.application_name = 'leadsync' AND $1 = ANY (pg_blocking_pids(a.pid))`, int64(holder), waiting)
}

// pollUntil runs query (true or false) on a connection of its own until
// it is true (what); a minute without fails the test.
func pollUntil(t *testing.T, cs, what, query string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c.Close(context.Background())
	for done := false; !done; {
		mustNoErr(t, c.QueryRow(ctx, query, args...).Scan(&done), "waiting until %s", what)
	}
}

// start runs f (a push or a migration) in a goroutine of its own; the
// channel returns what it returns.
func start(f func() error) <-chan error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	return done
}

// returnsOrRelease returns what the work done started returns. One still
// waiting after two minutes was not cut by its stall limit: the lock is
// released, so that it ends, and the test fails.
func returnsOrRelease(t *testing.T, b *Backend, release func(), done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Minute):
		release()
		t.Fatalf("the work waited for the lock two minutes; its stall limit was %s (it then ended: %v)", b.opts.StallLimit, <-done)
		return nil
	}
}

// A migration that waits for the schema's lock, which another session
// holds (as another process's migration does), ends at the stall limit
// (real time): the schema is as it was, and the migration's session no
// longer waits. Once the lock is released, it migrates; the schema then
// current, the next command's migration arms no watch.
func TestAStalledMigrationIsRolledBack(t *testing.T) {
	cs := testConnStr(t)
	old, schema, _ := schemaAt(t, cs, SchemaVersion-1)
	old.mu.Unlock()
	release, holder := holdLock(t, cs, fmt.Sprintf(`SELECT pg_advisory_xact_lock(%d)`, schemaKey(schema)))
	b := newPG(t, cs, schema, "", bob)
	b.opts.StallLimit = 50 * time.Millisecond // real time: the real timer
	err := returnsOrRelease(t, b, release, start(func() error { _, err := b.Load(); return err }))
	var se *stallError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "the migration was rolled back") {
		t.Fatalf("a migration past the stall limit: %v, want the stall", err)
	}
	t.Log(err)
	waitForWaiters(t, cs, holder, false)
	if v := versionOf(t, cs, b); v != SchemaVersion-1 {
		t.Fatalf("schema version %d after the stalled migration, want %d", v, SchemaVersion-1)
	}
	release()
	b.opts.StallLimit = 0
	_, err = b.Load()
	mustNoErr(t, err, "load once the lock is released")
	if v := versionOf(t, cs, b); v != SchemaVersion {
		t.Fatalf("schema version %d, want %d", v, SchemaVersion)
	}
	wantNoWatchArmed(t, cs, b)
}

// versionOf reads the version of b's schema on a connection of its own.
func versionOf(t *testing.T, cs string, b *Backend) int {
	t.Helper()
	ctx := context.Background()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	v, _, err := b.readVersion(ctx, c)
	mustNoErr(t, err, "read the schema version")
	return v
}

// Each statement on the connection of a watched work is a step: five
// statements each 40 s after the one before, on a clock of the test's,
// with a limit of one minute, do not end it; two minutes without one do
// (the session idle for milliseconds at the first limit, as between two
// steps, is given one more).
func TestEachStatementIsAStep(t *testing.T) {
	c, wctx, clock := watchedConn(t, testConnStr(t))
	for i := range 5 {
		clock.advance(40 * time.Second)
		_, err := c.Exec(wctx, "SELECT 1")
		mustNoErr(t, err, "statement %d, 40 s after the one before", i+1)
	}
	clock.advance(time.Minute)
	clock.advance(time.Minute)
	var se *stallError
	if !errors.As(context.Cause(wctx), &se) || se.step != "SELECT 1" {
		t.Fatalf("two minutes after the last statement: %v, want the stall after \"SELECT 1\"", context.Cause(wctx))
	}
}

// A limit that comes while the client is between two steps (a statement
// ended, the next not yet sent) does not cut the work: the server says
// its session has been idle in transaction for milliseconds, and the
// step is given one more limit. The test's clock makes the race certain.
// Still idle at the next limit, no step begun, the work is cut: its step
// went on for two limits, and the stall says so.
func TestALimitBetweenTwoStepsIsNotCut(t *testing.T) {
	c, wctx, clock := watchedConn(t, testConnStr(t))
	tx := stepInTx(t, c, wctx)
	clock.advance(time.Minute)
	if cause := context.Cause(wctx); cause != nil {
		t.Fatalf("the limit between two steps: %v, want one more limit", cause)
	}
	_, err := tx.Exec(wctx, "SELECT 2")
	mustNoErr(t, err, "the next step, after the limit")
	clock.advance(time.Minute)
	clock.advance(time.Minute)
	wantIdleCut(t, wctx, "SELECT 2", 2*time.Minute)
}

// A session idle in transaction past the grace when the limit comes is
// cut at once: its client stopped between two steps. The grace is a
// millisecond here, and the server says when the session has been idle
// longer.
func TestAnIdleTransactionPastTheGraceIsCut(t *testing.T) {
	cs := testConnStr(t)
	c, wctx, clock := watchedConn(t, cs)
	w := watchOf(wctx)
	w.mu.Lock()
	w.grace = time.Millisecond
	w.mu.Unlock()
	tx := stepInTx(t, c, wctx)
	pollUntil(t, cs, "the session is idle in transaction past the grace", `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
		WHERE pid = $1 AND state = 'idle in transaction' AND now() - state_change > interval '1 millisecond')`, int64(c.PgConn().PID()))
	clock.advance(time.Minute)
	wantIdleCut(t, wctx, "SELECT 1", time.Minute)
	if _, err := tx.Exec(wctx, "SELECT 2"); err == nil {
		t.Error("a step after the cut ran")
	}
}

// stepInTx begins a transaction on c and runs one statement in it
// (SELECT 1), each a step of the watch of wctx: the session is then idle
// in transaction.
func stepInTx(t *testing.T, c *pgx.Conn, wctx context.Context) pgx.Tx {
	t.Helper()
	tx, err := c.Begin(wctx)
	mustNoErr(t, err, "begin")
	_, err = tx.Exec(wctx, "SELECT 1")
	mustNoErr(t, err, "the step before")
	return tx
}

// wantIdleCut fails the test unless the watch of wctx cut the work at
// step after it went on for took, its session idle in transaction (for
// how long, said).
func wantIdleCut(t *testing.T, wctx context.Context, step string, took time.Duration) {
	t.Helper()
	var se *stallError
	if !errors.As(context.Cause(wctx), &se) || se.step != step || se.limit != took || !strings.Contains(se.why, "its session was idle in transaction for ") {
		t.Fatalf("idle in transaction after %q: %v, want the stall of an idle session after %s", step, context.Cause(wctx), took)
	}
	t.Log(se)
}

// A work stalled in its COMMIT does not say that nothing was written:
// whether it was is unknown, in each caller's words (a migration's do
// not send the user to the workspace's list).
func TestAStallInTheCommitSaysItIsUnknown(t *testing.T) {
	b, err := New(Options{ConnStr: "postgres://localhost/leads"})
	mustNoErr(t, err, "backend")
	for _, words := range []stallWords{pushWords, migrationWords} {
		for step, want := range map[string]string{"commit": "whether it was committed is unknown", "DELETE FROM x": "was rolled back"} {
			w := &stallWatch{cut: &stallError{limit: time.Minute, step: step}}
			err := b.stalled(w, errors.New("canceled"), words)
			if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), words.doing) {
				t.Errorf("%s stalled at %s: %v, want %q", words.doing, step, err, want)
			}
		}
	}
	w := &stallWatch{cut: &stallError{limit: time.Minute, step: "COMMIT"}}
	if err := b.stalled(w, errors.New("canceled"), migrationWords); strings.Contains(err.Error(), "state list") {
		t.Errorf("a migration stalled in its commit: %v, speaks of the workspace's list", err)
	}
}

// A push whose batches each take a tenth of the stall limit on a clock of
// the test's, more than twelve limits in all, is not cut: the limit
// bounds each step, not the push. The test's clock moves only when the
// source passes a batch, so the machine's speed does not count. The
// source runs a few batches ahead of the writes (PushSource.People's
// channel, the encoder's, writeAhead's queue), far fewer than ten.
func TestAPushThatProgressesIsNotCut(t *testing.T) {
	cs := testConnStr(t)
	b, clock := clockedPG(t, cs)
	s := backendtest.ManyPeople(t, 1200)
	want := backendtest.Canon(t, s) // before the push lets go of its lists (ReleaseLists)
	src := smallBatches{Stream: backend.MemoryStream(s, "the state"), n: 10, each: func() { clock.advance(6 * time.Second) }}
	_, err := b.PushStream(src, false)
	mustNoErr(t, err, "push of 120 batches, each a tenth of the stall limit")
	if took := clock.advance(0); took < 12*time.Minute {
		t.Fatalf("the push took %s on the test's clock, want past 12 stall limits", took)
	}
	got, err := newPG(t, cs, b.schema, "", bob).Load()
	mustNoErr(t, err, "load")
	if backendtest.Canon(t, got) != want {
		t.Error("the state pushed differs")
	}
}

// watchedConn is a connection of its own whose work is watched (its
// context), the stall limit a minute on the clock it returns; the watch
// ends with the test.
func watchedConn(t *testing.T, cs string) (*pgx.Conn, context.Context, *stepClock) {
	t.Helper()
	b, clock := clockedPG(t, cs)
	ctx := context.Background()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	t.Cleanup(func() { c.Close(ctx) })
	wctx, w := b.watchStalls(ctx, c, "the test's work")
	t.Cleanup(w.end)
	return c, wctx, clock
}

// clockedPG is a backend on a new schema whose stall limit is a minute
// on the clock it returns.
func clockedPG(t *testing.T, cs string) (*Backend, *stepClock) {
	t.Helper()
	b := newPG(t, cs, testSchema(t, cs), "", alice)
	clock := &stepClock{}
	b.stallTimer = clock.after
	b.opts.StallLimit = time.Minute
	return b, clock
}

// smallBatches passes its Stream's people n at a time, each after a call
// of each.
type smallBatches struct {
	backend.Stream
	n    int
	each func()
}

func (s smallBatches) People(fn func([]*state.Person) error) error {
	return s.Stream.People(func(batch []*state.Person) error {
		for part := range slices.Chunk(batch, s.n) {
			s.each()
			if err := fn(part); err != nil {
				return err
			}
		}
		return nil
	})
}

// stepClock is a clock that moves only when advanced: its timers fire
// then, once their time has come.
type stepClock struct {
	mu     sync.Mutex
	now    time.Duration
	timers []*stepTimer
}

type stepTimer struct {
	at      time.Duration
	f       func()
	stopped bool
}

// after is a stallTimer on c.
func (c *stepClock) after(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &stepTimer{at: c.now + d, f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// wall is c's time as a wall clock's, from the Unix epoch.
func (c *stepClock) wall() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Unix(0, 0).Add(c.now)
}

// advance moves c by d and fires the timers whose time has come; it
// returns the time.
func (c *stepClock) advance(d time.Duration) time.Duration {
	c.mu.Lock()
	c.now += d
	now := c.now
	var due []func()
	for _, t := range c.timers {
		if !t.stopped && t.at <= c.now {
			t.stopped = true
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
	return now
}
