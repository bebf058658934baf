package pg

import (
	"context"
	"fmt"
	"os"
	"sync"
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

// sharedSchemas hands the tests that need no schema of their own making
// (pooledSchema) the emptied schemas of ended tests: migrating a schema
// and dropping it cost the server more than emptying one. TestMain
// closes it.
var sharedSchemas struct {
	once sync.Once
	pool *testenv.SchemaPool
	err  error
}

// pooledSchema gives t a migrated, empty schema of its own, given back
// at t's end (testenv.SchemaPool). A test of migrations, versions,
// owners, statistics or a schema's first making uses testSchema.
func pooledSchema(t testing.TB, cs string) string {
	t.Helper()
	sharedSchemas.once.Do(func() {
		sharedSchemas.pool, sharedSchemas.err = testenv.OpenSchemaPool(cs, "t_", migrateSchema(cs))
	})
	if sharedSchemas.err != nil {
		t.Fatal(sharedSchemas.err)
	}
	return sharedSchemas.pool.Schema(t)
}

// closeSharedSchemas drops the schemas sharedSchemas keeps, and says
// with -test.v how many were handed out again.
func closeSharedSchemas() error {
	p := sharedSchemas.pool
	if p == nil {
		return nil
	}
	if testing.Verbose() {
		fmt.Printf("shared schemas: %d handed out again, %d made\n", p.Kept(), p.Made())
	}
	return p.Close()
}

// migrateSchema makes schema name at cs as the first open would.
func migrateSchema(cs string) func(name string) error {
	return func(name string) error {
		b, err := New(Options{ConnStr: cs, Schema: name})
		if err != nil {
			return err
		}
		defer b.Close()
		ctx := context.Background()
		c, err := connect(ctx, cs)
		if err != nil {
			return err
		}
		defer c.Close(ctx)
		return b.ensureSchema(ctx, c)
	}
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
