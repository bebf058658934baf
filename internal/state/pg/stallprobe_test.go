package pg

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// A server full when the limits come does not cut a step it runs: the
// probe's connection was opened when the watch was armed, and kept. The
// role's limit of two connections is a real fault: the test fills it
// once the watch is armed, until the server refuses the role with
// 53300, before three limits pass. A restart's end of both sessions still cuts the
// work: the probe's dead connection is opened again, and the server says
// the work's session is gone.
func TestAFullServerDoesNotCutARunningStep(t *testing.T) {
	cs := testConnStr(t)
	full := roleOfTwoConnections(t, cs)
	b, err := New(Options{ConnStr: full, StallLimit: time.Minute})
	mustNoErr(t, err, "backend")
	clock := &stepClock{}
	b.stallTimer = clock.after
	ctx := context.Background()
	c, err := connect(ctx, full)
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	wctx, w := b.watchStalls(ctx, c, "the test's work")
	defer w.end()
	const endless = `SELECT count(g) FROM (SELECT generate_series(1, 1000000000000000) g) s`
	pid := c.PgConn().PID()
	t.Cleanup(func() { cancelBackend(t, cs, pid) })
	done := start(func() error { _, err := c.Exec(wctx, endless); return err })
	pollUntil(t, cs, "the statement runs", `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active')`, int64(pid))
	fill(t, full)
	for i := range 3 {
		clock.advance(time.Minute)
		if cause := context.Cause(wctx); cause != nil {
			t.Fatalf("a statement PostgreSQL runs on a full server, %d minutes on: cut (%v)", i+1, cause)
		}
	}
	terminateRole(t, cs, full)
	<-done
	clock.advance(time.Minute)
	var se *stallError
	if !errors.As(context.Cause(wctx), &se) || se.why != "its session had ended" {
		t.Fatalf("both sessions ended as by a restart: %v, want the stall of a session that had ended", context.Cause(wctx))
	}
}

// roleOfTwoConnections makes a role that may hold two connections at
// once, dropped with the test, and returns cs as that role.
func roleOfTwoConnections(t *testing.T, cs string) string {
	t.Helper()
	role := "t_" + newID()[:12] + "_two"
	ctx := context.Background()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	_, err = c.Exec(ctx, `CREATE ROLE `+role+` LOGIN NOSUPERUSER CONNECTION LIMIT 2`)
	mustNoErr(t, err, "make a role")
	t.Cleanup(func() {
		terminateRole(t, cs, role)
		c, err := connect(ctx, cs)
		mustNoErr(t, err, "connect")
		defer c.Close(ctx)
		_, err = c.Exec(ctx, `DROP ROLE `+role)
		mustNoErr(t, err, "drop the role")
	})
	u, err := url.Parse(cs)
	mustNoErr(t, err, "read the connection string")
	u.User = url.User(role)
	return u.String()
}

// fill opens connections as the role of cs until the server refuses
// one for the role's limit (53300), and closes them with the test.
func fill(t *testing.T, cs string) {
	t.Helper()
	ctx := context.Background()
	for range 3 {
		c, err := connect(ctx, cs)
		if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "53300" {
			return
		}
		mustNoErr(t, err, "connect to fill the role's limit")
		t.Cleanup(func() { c.Close(ctx) })
	}
	t.Fatal("the server accepted three connections of a role limited to two")
}

// terminateRole ends every session of the role of roleCS (or named so),
// as a restart of the server would, and waits until they are gone.
func terminateRole(t *testing.T, cs, roleCS string) {
	t.Helper()
	role := roleCS
	if u, err := url.Parse(roleCS); err == nil && u.User != nil {
		role = u.User.Username()
	}
	ctx := context.Background()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	_, err = c.Exec(ctx, `SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE usename = $1`, role)
	mustNoErr(t, err, "end the role's sessions")
}
