package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// A statement PostgreSQL runs (active, not waiting for a lock) past the
// stall limit is not cut: at each limit the server is asked, and the
// statement goes on. The statement counts without end until the test
// cancels it, and the test's clock passes three limits while it runs:
// the machine's speed does not count.
func TestAStatementPostgreSQLRunsIsNotCut(t *testing.T) {
	cs := testConnStr(t)
	c, wctx, clock := watchedConn(t, cs)
	const endless = `SELECT count(g) FROM (SELECT generate_series(1, 1000000000000000) g) s`
	pid := c.PgConn().PID()
	t.Cleanup(func() { cancelBackend(t, cs, pid) }) // a failed test leaves no count running
	done := start(func() error { _, err := c.Exec(wctx, endless); return err })
	pollUntil(t, cs, "the statement runs", `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active')`, int64(pid))
	for i := range 3 {
		clock.advance(time.Minute)
		if cause := context.Cause(wctx); cause != nil {
			t.Fatalf("a statement PostgreSQL runs, %d minutes on: cut (%v)", i+1, cause)
		}
	}
	cancelBackend(t, cs, pid)
	if err := <-done; err == nil || context.Cause(wctx) != nil {
		t.Fatalf("the statement cancelled by the test: %v (the watch: %v)", err, context.Cause(wctx))
	}
}

// cancelBackend asks the server to cancel the statement of session pid.
func cancelBackend(t *testing.T, cs string, pid uint32) {
	t.Helper()
	ctx := context.Background()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	_, err = c.Exec(ctx, `SELECT pg_cancel_backend($1)`, int64(pid))
	mustNoErr(t, err, "cancel the statement")
}

// What the server says of a step past the limit decides: one it runs
// goes on (asked again at the next limit); one waiting for a lock, one
// it does not run, and a question it does not answer cut the work, and
// the stall says why. A session idle for less than the grace (its client
// between two steps) is given one more limit, not two: still idle at the
// next one, no step begun, it is cut. A question that fails says how
// long it went on (each takes 20.007 s here, as a kept connection's and a
// new one's limits would).
func TestWhatTheServerSaysDecides(t *testing.T) {
	const grace, took = 30 * time.Second, 20*time.Second + 7*time.Millisecond
	for _, c := range []struct {
		act    activity
		err    error
		want   string // "" when not cut
		graced bool   // cut only at the second limit
	}{
		{act: activity{state: "active"}},
		{act: activity{state: "active", waitType: "IO"}},
		{act: activity{state: "active", waitType: "Client", inState: time.Hour}, graced: true, want: "PostgreSQL was waiting for leadsync to send the rest of it"},
		{act: activity{state: "active", waitType: "Lock", blockers: []int32{42, 43}, waited: 61.25}, want: "it waited 1m1.25s for a lock held by PID 42, 43"},
		{act: activity{state: "active", waitType: "Lock"}, want: "it waited for a lock"},
		{act: activity{state: "idle in transaction", inState: grace}, want: "PostgreSQL was not running it (its session was idle in transaction for 30s)"},
		{act: activity{state: "idle in transaction", inState: grace - time.Millisecond}, graced: true, want: "PostgreSQL was not running it (its session was idle in transaction for 29.999s)"},
		{act: activity{state: "idle", inState: 3 * time.Millisecond}, graced: true, want: "PostgreSQL was not running it (its session was idle for 3ms)"},
		{act: activity{state: "active", waitType: "Lock", inState: time.Millisecond}, want: "it waited for a lock"},
		{act: activity{}, want: "its session had ended"},
		{err: errors.New("timeout: no answer"), want: "the server did not say what it was doing: its question failed after 20.007s (timeout: no answer)"},
		{err: probeRefused(&pgconn.PgError{Code: "53300", Message: "too many connections for role"}), graced: true,
			want: "the server refused twice, a limit apart, to say what it was doing (the server refused a connection to ask: : too many connections for role (SQLSTATE 53300))"},
		{err: probeRefused(&pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}), graced: true,
			want: "the server refused twice, a limit apart, to say what it was doing (the server refused a connection to ask: : the database system is starting up (SQLSTATE 57P03))"},
		{err: probeRefused(&pgconn.PgError{Code: "28P01", Message: "password authentication failed"}), want: "the server did not say what it was doing: its question failed after 20.007s (: password authentication failed (SQLSTATE 28P01))"},
	} {
		clock := &stepClock{}
		asked := 0
		w := &stallWatch{limit: time.Minute, grace: grace, timer: clock.after, now: clock.wall,
			ask: func() (activity, error) { asked++; clock.advance(took); return c.act, c.err }}
		ctx, _ := w.watch(context.Background(), "SELECT 1")
		clock.advance(time.Minute)
		if cut := context.Cause(ctx) != nil; cut != (c.want != "" && !c.graced) {
			t.Errorf("%+v, %v: cut at the first limit %t, want %t", c.act, c.err, cut, !cut)
		}
		clock.advance(time.Minute)
		cause := context.Cause(ctx)
		switch {
		case c.want == "" && (cause != nil || asked != 2):
			t.Errorf("%+v: %v after %d questions, want not cut, asked at each limit", c.act, cause, asked)
		case c.want != "" && (cause == nil || !strings.HasSuffix(cause.Error(), "): "+c.want)):
			t.Errorf("%+v, %v: %v, want the stall saying %q", c.act, c.err, cause, c.want)
		}
		w.end()
	}
}

// A step under way when its session was given one more limit, between
// two steps, has it again once the next step begins: the grace is once
// a step, not once a work.
func TestEachStepMayBeBetweenSteps(t *testing.T) {
	clock := &stepClock{}
	w := &stallWatch{limit: time.Minute, grace: time.Second, timer: clock.after,
		ask: func() (activity, error) { return activity{state: "idle in transaction"}, nil }}
	ctx, _ := w.watch(context.Background(), "SELECT 1")
	defer w.end()
	for i := range 3 {
		clock.advance(time.Minute)
		w.progress(fmt.Sprintf("SELECT %d", i+2))
	}
	if cause := context.Cause(ctx); cause != nil {
		t.Fatalf("three steps each found between two steps at its limit: %v, want each given one more", cause)
	}
}

// A COPY whose server waits for leadsync's rows, then runs, then waits
// again, made progress between the two waits: the running answer gives
// the step its grace back. Waiting at two limits in a row still cuts.
func TestARunningAnswerRenewsTheGrace(t *testing.T) {
	clock := &stepClock{}
	waits := activity{state: "active", waitType: "Client", inState: time.Hour}
	answers := []activity{waits, {state: "active"}, waits, {state: "active"}, waits, waits}
	asked := 0
	w := &stallWatch{limit: time.Minute, grace: time.Second, timer: clock.after,
		ask: func() (activity, error) { a := answers[asked]; asked++; return a, nil }}
	ctx, _ := w.watch(context.Background(), "COPY people FROM STDIN")
	defer w.end()
	for range 5 {
		clock.advance(time.Minute)
	}
	if cause := context.Cause(ctx); cause != nil {
		t.Fatalf("a COPY running between its waits for the client was cut: %v", cause)
	}
	clock.advance(time.Minute)
	if context.Cause(ctx) == nil {
		t.Errorf("a COPY waiting for the client at two limits in a row was not cut")
	}
}

// A statement's name in the stall's message is its first 80 bytes,
// never cut inside a character.
func TestAStepIsQuotedWholeCharacters(t *testing.T) {
	sql := "SELECT '" + strings.Repeat("é", 60) + "'"
	q := quoteStep(sql)
	if !utf8.ValidString(q) || !strings.HasSuffix(q, "…") || len(q) > 80+len("…") || len(q) < 79 {
		t.Errorf("quoteStep(%q) = %q (%d bytes), want 79–80 bytes of whole characters and …", sql, q, len(q))
	}
	if q := quoteStep("SELECT\n\t  1"); q != "SELECT 1" {
		t.Errorf("quoteStep of a short statement = %q, want its spaces collapsed", q)
	}
}

// Without a watch, the tracer pgx calls before every statement costs
// nothing: the statement is not quoted, no memory is taken.
func TestTheTracerCostsNothingUnwatched(t *testing.T) {
	ctx := context.Background()
	sql := "SELECT " + strings.Repeat("x, ", 100) + "y FROM t"
	allocs := testing.AllocsPerRun(100, func() {
		stallTracer{}.TraceQueryStart(ctx, nil, pgx.TraceQueryStartData{SQL: sql})
		stallTracer{}.TraceCopyFromStart(ctx, nil, pgx.TraceCopyFromStartData{TableName: pgx.Identifier{"s", "people"}})
	})
	if allocs != 0 {
		t.Errorf("the tracer without a watch: %v allocations a statement, want 0", allocs)
	}
}

// wantNoWatchArmed fails the test when migrating b's schema, current,
// arms a watch: a schema already at the version asked for is not
// migrated, nor watched (a command opens the schema more than once).
func wantNoWatchArmed(t *testing.T, cs string, b *Backend) {
	t.Helper()
	clock := &stepClock{}
	b.stallTimer = clock.after
	ctx := context.Background()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	mustNoErr(t, b.migrate(ctx, c, SchemaVersion), "migrate a current schema")
	if n := len(clock.timers); n != 0 {
		t.Errorf("migrating a current schema armed %d timers, want none", n)
	}
}

// A refused question goes on once in a row: a refusal after an answer
// that the statement runs, or after a step began, goes on too; two in a
// row, no step begun, cut the work.
func TestARefusedQuestionGoesOnOnceInARow(t *testing.T) {
	refused := probeRefused(&pgconn.PgError{Code: "53300", Message: "too many connections"})
	answers := []error{refused, nil, refused, refused, refused}
	clock := &stepClock{}
	asked := 0
	w := &stallWatch{limit: time.Minute, grace: time.Second, timer: clock.after,
		ask: func() (activity, error) { asked++; return activity{state: "active"}, answers[asked-1] }}
	ctx, _ := w.watch(context.Background(), "SELECT 1")
	defer w.end()
	for range 3 { // refused, running, refused
		clock.advance(time.Minute)
	}
	w.progress("SELECT 2")
	clock.advance(time.Minute) // refused, a step begun since the last
	if cause := context.Cause(ctx); cause != nil || asked != 4 {
		t.Fatalf("%v after %d questions; want no refusal in a row cut", cause, asked)
	}
	clock.advance(time.Minute) // refused again
	if cause := context.Cause(ctx); cause == nil || !strings.Contains(cause.Error(), "refused twice") {
		t.Fatalf("%v; want two refusals in a row to cut the work", cause)
	}
}
