package pg

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
	"github.com/leadsync/leadsync/internal/state/statetest"
	"github.com/leadsync/leadsync/internal/testenv"
)

// testConnStr returns the test server's connection string. Without
// LEADSYNC_TEST_PG the test skips, saying how to run it; under CI (CI=true)
// a skipped pg test would hide a missing server, so it fails instead.
// Its sessions commit without waiting for the disk (testenv.LazyCommits).
func testConnStr(t testing.TB) string {
	t.Helper()
	cs := os.Getenv("LEADSYNC_TEST_PG")
	if cs == "" {
		const how = "pg tests need a PostgreSQL server: run `source .ci/pg-start` (it sets LEADSYNC_TEST_PG) and go test again"
		testenv.Skip(t, "LEADSYNC_TEST_PG is not set: "+how)
	}
	return testenv.LazyCommits(cs)
}

// testSchema makes a fresh schema name for one test and drops it at the end.
func testSchema(t testing.TB, cs string) string {
	t.Helper()
	name := "t_" + newID()[:12]
	t.Cleanup(func() {
		ctx := context.Background()
		c, err := connect(ctx, cs)
		if err != nil {
			t.Errorf("cleanup: %v", err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, `DROP SCHEMA IF EXISTS `+name+` CASCADE`); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return name
}

// alice and bob are two processes (teammates, or one user's two runs).
var alice, bob = backendtest.Alice, backendtest.Bob

// The conformance suite's fixture, which the tests of this package use too.
var (
	t0     = statetest.T0
	events = backendtest.Events
	apply  = backendtest.Apply
)

func newPG(t testing.TB, cs, schema, ws string, w backendtest.Who) *Backend {
	t.Helper()
	b, err := New(Options{ConnStr: cs, Schema: schema, Workspace: ws,
		User: func() string { return w.User }, Host: func() string { return w.Host }, PID: w.PID,
		Now: func() time.Time { return backendtest.Now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func mustNoErr(t testing.TB, err error, what string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(what, args...), err)
	}
}

// schemaAt makes a new schema of version v (the migrations up to it) and
// gives the backend on it, the schema's name and its connection, the
// backend's lock held (a test unlocks old.mu when done with c).
func schemaAt(t testing.TB, cs string, v int) (old *Backend, schema string, c *pgx.Conn) {
	t.Helper()
	schema = testSchema(t, cs)
	old = newPG(t, cs, schema, "", alice)
	ctx := context.Background()
	old.mu.Lock()
	c, err := old.c(ctx)
	mustNoErr(t, err, "connect")
	mustNoErr(t, old.migrate(ctx, c, v), "make a version %d schema", v)
	return old, schema, c
}
