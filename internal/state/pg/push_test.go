package pg

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/local/localtest"
)

// A local state database is pushed into PostgreSQL a batch of people at a
// time and arrives identical.
func TestPushFromTheLocalDatabase(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	s := backendtest.ManyPeople(t, 2*backend.StreamBatch+321)
	src := filepath.Join(t.TempDir(), ".leadsync", "state.db")
	mustNoErr(t, local.NewStore(src).Save(s), "save the local state")
	st, err := backend.OpenStream(local.Open(src))
	mustNoErr(t, err, "open the local state")
	defer st.Close()
	b := newPG(t, cs, pooledSchema(t, cs), "", alice)
	pushed, err := b.PushStream(st, false)
	mustNoErr(t, err, "push")
	if pushed.People != len(s.People) {
		t.Fatalf("pushed %d people; the state has %d", pushed.People, len(s.People))
	}
	got, err := newPG(t, cs, b.schema, "", bob).Load()
	mustNoErr(t, err, "load")
	if !backendtest.SameCanon(t, got, s) {
		t.Fatal("the state pushed from the local database differs")
	}
}

// A local database of schema version 7 that holds the calls of an
// interrupted apply not folded in is pushed into PostgreSQL with them:
// the workspace holds that apply's state, every paid call and the
// enrichment in flight included.
func TestPushFromALocalSchema7WithPendingCalls(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	src := filepath.Join(t.TempDir(), ".leadsync", "state.db")
	want := localtest.InterruptedAtSchema7(t, local.Open(src), src)
	st, err := backend.OpenStream(local.Open(src))
	mustNoErr(t, err, "open the local state")
	defer st.Close()
	b := newPG(t, cs, testSchema(t, cs), "", alice)
	_, err = b.PushStream(st, false)
	mustNoErr(t, err, "push")
	got, err := newPG(t, cs, b.schema, "", bob).Load()
	mustNoErr(t, err, "load")
	if canon := backendtest.Canon; canon(t, got) != canon(t, want) {
		t.Errorf("pushed:\n%.1500s\nwant the interrupted apply's state\n%.1500s", canon(t, got), canon(t, want))
	}
}

// keysToPeople lists the foreign keys to schema's people table: each
// key's oid, then its name, table and definition.
func keysToPeople(t *testing.T, cs, schema string) (oids, defs []string) {
	t.Helper()
	ctx := context.Background()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	rows, err := c.Query(ctx, `SELECT c.oid::text, c.conname || ' ' || t.relname || ' ' || pg_get_constraintdef(c.oid) FROM pg_constraint c
		JOIN pg_class t ON t.oid = c.conrelid WHERE c.contype = 'f' AND c.confrelid = $1::regclass ORDER BY c.conname`, schema+".people")
	mustNoErr(t, err, "list the keys")
	for rows.Next() {
		var oid, def string
		mustNoErr(t, rows.Scan(&oid, &def), "read the keys")
		oids, defs = append(oids, oid), append(defs, def)
	}
	mustNoErr(t, rows.Err(), "list the keys")
	return oids, defs
}

// halfWay fails its People pass after one batch.
type halfWay struct{ backend.Stream }

func (h halfWay) People(fn func([]*state.Person) error) error {
	n := 0
	return h.Stream.People(func(b []*state.Person) error {
		if n++; n > 1 {
			return errors.New("the source went away")
		}
		return fn(b)
	})
}

// A push --force over a workspace's people, alone in its schema, deletes
// them a table at a time: the keys of their enrichments and histories
// are made again (new oids), as they were. A push that fails half-way
// leaves the state and the keys as they were; with another workspace in
// the schema the keys are left alone.
func TestForcePushRemakesTheKeysToPeople(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	schema := pooledSchema(t, cs)
	b := newPG(t, cs, schema, "", alice)
	_, err := b.PushStream(backend.MemoryStream(backendtest.ManyPeople(t, 700), "the first state"), false)
	mustNoErr(t, err, "push the first state")
	oids, defs := keysToPeople(t, cs, schema)
	if len(defs) != 2 {
		t.Fatalf("keys to people: %q", defs)
	}
	second := backendtest.ManyPeople(t, backend.StreamBatch+400)
	_, err = b.PushStream(backend.MemoryStream(second, "the second state"), true)
	mustNoErr(t, err, "push --force")
	got, err := newPG(t, cs, schema, "", bob).Load()
	mustNoErr(t, err, "load")
	if !backendtest.SameCanon(t, got, second) {
		t.Fatal("the state pushed with --force differs")
	}
	oids2, defs2 := keysToPeople(t, cs, schema)
	if !slices.Equal(defs2, defs) || slices.Equal(oids2, oids) {
		t.Fatalf("keys to people after push --force: %q (oids %v), want %q made again (oids before %v)", defs2, oids2, defs, oids)
	}

	_, err = b.PushStream(halfWay{backend.MemoryStream(backendtest.ManyPeople(t, 2*backend.StreamBatch), "the failing state")}, true)
	if err == nil || !strings.Contains(err.Error(), "went away") {
		t.Fatalf("push of a source failing half-way: %v", err)
	}
	got, err = newPG(t, cs, schema, "", bob).Load()
	mustNoErr(t, err, "load")
	if !backendtest.SameCanon(t, got, second) {
		t.Fatal("the state after a push failing half-way differs")
	}
	if oids3, defs3 := keysToPeople(t, cs, schema); !slices.Equal(defs3, defs) || !slices.Equal(oids3, oids2) {
		t.Fatalf("keys to people after a push failing half-way: %q (oids %v), want %q (oids %v)", defs3, oids3, defs, oids2)
	}

	mustNoErr(t, b.CreateWorkspace("other"), "workspace new")
	_, err = b.PushStream(backend.MemoryStream(backendtest.ManyPeople(t, 300), "the third state"), true)
	mustNoErr(t, err, "push --force beside another workspace")
	if oids4, defs4 := keysToPeople(t, cs, schema); !slices.Equal(defs4, defs) || !slices.Equal(oids4, oids2) {
		t.Fatalf("keys to people after a push beside another workspace: %q (oids %v), want them untouched: %q (oids %v)", defs4, oids4, defs, oids2)
	}
}

// A push leaves the planner statistics of the people it wrote: without
// them the first state list after it sorted every ID on disk.
func TestPushAnalyzesThePeople(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	b := newPG(t, cs, testSchema(t, cs), "", alice)
	mustNoErr(t, b.Push(backendtest.ManyPeople(t, 30), false), "push")
	ctx := context.Background()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	var analyzed bool
	err = c.QueryRow(ctx, `SELECT last_analyze IS NOT NULL FROM pg_stat_user_tables WHERE relid = $1::regclass`,
		b.schema+".people").Scan(&analyzed)
	mustNoErr(t, err, "statistics of the people")
	if !analyzed {
		t.Error("the people are not analyzed after the push")
	}
}
