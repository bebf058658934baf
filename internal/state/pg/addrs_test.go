package pg

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// TestMigrateSchema14: a schema of version 14 (found_by as text[]) gets
// the numbered addresses when a command opens it (version 15): each
// workspace's addresses numbered in byte order, found_by the integer[]
// of their numbers, the view people_found_by giving the texts, and the
// state read the same.
func TestMigrateSchema14(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	old, schema, c := schemaAt(t, cs, 14)
	ctx := context.Background()
	var err error
	for _, q := range []string{
		`INSERT INTO {s}.workspaces (name, lineage, serial, format_version, created_at) VALUES ('default', 'lin-1', 7, 1, now()), ('other', 'lin-2', 1, 1, now())`,
		`INSERT INTO {s}.people (workspace, id, full_name, found_by) VALUES
			('default', 'p1', 'A', '{search.b,search.a}'), ('default', 'p2', 'B', '{search.b}'), ('default', 'p3', 'C', '{}'),
			('default', 'p4', 'D', NULL), ('other', 'q1', 'E', '{search.z}')`,
	} {
		_, err = c.Exec(ctx, old.sql(q))
		mustNoErr(t, err, "insert")
	}
	old.mu.Unlock()
	s, err := newPG(t, cs, schema, "", bob).Load()
	mustNoErr(t, err, "load of a version 14 schema")
	want := map[string][]string{"p1": {"search.a", "search.b"}, "p2": {"search.b"}, "p3": {}, "p4": nil}
	for id, fb := range want {
		p := s.People[id]
		if p == nil || !slices.Equal(p.FoundBy, fb) || (fb == nil) != (p.FoundBy == nil) {
			t.Errorf("person %s after the migration: %+v, want found_by %q", id, p, fb)
		}
	}
	var v int
	mustNoErr(t, c.QueryRow(ctx, old.sql(`SELECT version FROM {s}.schema_version`)).Scan(&v), "version")
	if v != SchemaVersion {
		t.Fatalf("schema version %d after migration, want %d", v, SchemaVersion)
	}
	var addrs, nums, view []string
	mustNoErr(t, c.QueryRow(ctx, old.sql(`SELECT array_agg(workspace || ':' || n || '=' || address ORDER BY workspace, n) FROM {s}.addresses`)).Scan(&addrs), "addresses")
	if w := []string{"default:1=search.a", "default:2=search.b", "other:1=search.z"}; !slices.Equal(addrs, w) {
		t.Errorf("addresses %q, want %q", addrs, w)
	}
	mustNoErr(t, c.QueryRow(ctx, old.sql(`SELECT array_agg(id || coalesce(found_by::text, '-') ORDER BY id) FROM {s}.people`)).Scan(&nums), "found_by")
	if w := []string{"p1{2,1}", "p2{2}", "p3{}", "p4-", "q1{1}"}; !slices.Equal(nums, w) {
		t.Errorf("found_by %q, want the numbers in the lists' order %q", nums, w)
	}
	mustNoErr(t, c.QueryRow(ctx, old.sql(`SELECT array_agg(id || coalesce(found_by::text, '-') ORDER BY id) FROM {s}.people_found_by`)).Scan(&view), "view")
	if w := []string{`p1{search.a,search.b}`, `p2{search.b}`, "p3{}", "p4-", `q1{search.z}`}; !slices.Equal(view, w) {
		t.Errorf("people_found_by %q, want %q", view, w)
	}
}

// TestMoveRenamesOneAddressRow: a move folded into a partial state and
// written (the recorder's Checkpoint) renames the moved search's one row
// of the table addresses: no person's found_by changes, and the state
// read after names the new address.
func TestMoveRenamesOneAddressRow(t *testing.T) {
	t.Parallel()
	f := newMoveFixture(t)
	ctx := context.Background()
	foundBy := func() (out string) {
		mustNoErr(t, f.c.QueryRow(ctx, f.b.sql(`SELECT string_agg(id || found_by::text, ';' ORDER BY id) FROM {s}.people`)).Scan(&out), "found_by")
		return out
	}
	before := foundBy()
	checkpointMove(t, f.b, f.from, "search.moved")
	var renamed int
	mustNoErr(t, f.c.QueryRow(ctx, f.b.sql(`SELECT coalesce(sum(renamed), -1) FROM {s}.addresses WHERE address = 'search.moved'`)).Scan(&renamed), "addresses")
	if after := foundBy(); renamed != 1 || after != before {
		t.Errorf("after the move: the row of search.moved renamed %d times (want 1); found_by changed: %v", renamed, after != before)
	}
	foundAfterMove(t, f.reader(t), f.from, "search.moved", f.listed)
}

// TestMoveOntoANumberedAddress: a move onto an address that has a number
// already (a block removed earlier left it) gives every person found by
// the moved address that number, those the moved record does not list
// too (one kept after its lead list dropped them), as the fold does.
func TestMoveOntoANumberedAddress(t *testing.T) {
	t.Parallel()
	f := newMoveFixture(t)
	_, err := f.c.Exec(context.Background(), f.b.sql(`INSERT INTO {s}.addresses (workspace, n, address) SELECT workspace, max(n) + 100, 'search.moved' FROM {s}.addresses GROUP BY workspace;
		INSERT INTO {s}.people (workspace, id, found_by) SELECT workspace, 'unlisted', ARRAY[n] FROM {s}.addresses WHERE address = '`+f.from+`'`))
	mustNoErr(t, err, "an address numbered, a person not listed")
	checkpointMove(t, f.b, f.from, "search.moved")
	foundAfterMove(t, f.reader(t), f.from, "search.moved", f.listed+1)
}

// moveFixture is a schema of its own holding backendtest.ManyPeople(t,
// 500), pushed by b, a connection c to it, and the search to move (from)
// with the count of people its lead list holds.
type moveFixture struct {
	cs, schema string
	b          *Backend
	c          *pgx.Conn
	from       string
	listed     int
}

func newMoveFixture(t *testing.T) *moveFixture {
	t.Helper()
	f := &moveFixture{cs: testConnStr(t), from: `search.many["0"]`}
	f.schema = pooledSchema(t, f.cs)
	whole := backendtest.ManyPeople(t, 500)
	f.b = newPG(t, f.cs, f.schema, "", alice)
	mustNoErr(t, f.b.Push(whole, false), "push")
	f.listed = len(whole.Searches[f.from].LeadIDs)
	var err error
	f.c, err = f.b.writable(context.Background())
	mustNoErr(t, err, "connect")
	return f
}

// reader is another backend on f's schema.
func (f *moveFixture) reader(t *testing.T) *Backend { return newPG(t, f.cs, f.schema, "", bob) }

// checkpointMove folds a move of from to to into a partial state of b
// and writes it (the recorder's Checkpoint), then closes the recording.
func checkpointMove(t *testing.T, b *Backend, from, to string) {
	t.Helper()
	ev := state.Event{At: backendtest.At(30), Kind: state.EventMove, Address: state.MovesAddress,
		Move: &state.MoveEvent{Moves: []state.Move{{From: from, To: to}}}}
	base, err := backend.OpenBase(b)
	mustNoErr(t, err, "open base")
	defer base.Close()
	s, err := base.Writable()
	mustNoErr(t, err, "writable")
	rec, err := b.OpenJournal(s)
	mustNoErr(t, err, "journal")
	mustNoErr(t, rec.Append(&ev), "append")
	mustNoErr(t, s.Fold(ev), "fold")
	mustNoErr(t, rec.(interface{ Checkpoint(context.Context) error }).Checkpoint(context.Background()), "checkpoint")
	mustNoErr(t, rec.Close(), "close")
}

// foundAfterMove fails t unless the state b loads has no person found by
// from and n found by to.
func foundAfterMove(t *testing.T, b *Backend, from, to string, n int) {
	t.Helper()
	got, err := b.Load()
	mustNoErr(t, err, "load")
	moved := 0
	for _, p := range got.People {
		if slices.Contains(p.FoundBy, to) {
			moved++
		}
		if slices.Contains(p.FoundBy, from) {
			t.Fatalf("person %s still found by %s: %q", p.ID, from, p.FoundBy)
		}
	}
	if moved != n {
		t.Errorf("%d people found by %s after the move, want %d", moved, to, n)
	}
}

// TestMigrationOutlivesTheOperationsDeadline: a migration given a context
// whose deadline has passed (one operation's ten minutes spent, as a
// schema 15 migration of ten million people could) still completes: cut
// short, it would roll back and start again at every command.
func TestMigrationOutlivesTheOperationsDeadline(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	old := newPG(t, cs, testSchema(t, cs), "", alice)
	ctx := context.Background()
	old.mu.Lock()
	defer old.mu.Unlock()
	c, err := old.c(ctx)
	mustNoErr(t, err, "connect")
	mustNoErr(t, old.migrate(ctx, c, 14), "make a version 14 schema")
	spent, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	mustNoErr(t, old.migrate(spent, c, SchemaVersion), "a migration past the operation's deadline")
	var v int
	mustNoErr(t, c.QueryRow(ctx, old.sql(`SELECT version FROM {s}.schema_version`)).Scan(&v), "version")
	if v != SchemaVersion {
		t.Fatalf("schema version %d, want %d", v, SchemaVersion)
	}
}

// TestTwoWritersNumberAtOnce: two transactions numbering new addresses of
// one workspace at once both commit, each address with a number of its
// own: the second waits for the first (the workspace row's lock), then
// numbers after it. Numbered from the highest number each had read, the
// second failed on the primary key.
func TestTwoWritersNumberAtOnce(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	schema := pooledSchema(t, cs)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := newPG(t, cs, schema, "", alice)
	mustNoErr(t, b.Push(backendtest.ManyPeople(t, 10), false), "push")
	c1, err := b.writable(ctx)
	mustNoErr(t, err, "connect")
	c2, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c2.Close(ctx)
	found := func(a string) []*state.Person { return []*state.Person{{ID: a, FoundBy: []string{a}}} }
	tx1, err := c1.Begin(ctx)
	mustNoErr(t, err, "begin")
	defer tx1.Rollback(ctx)
	first, err := b.numbers(ctx, tx1, b.workspace, found("search.first"))
	mustNoErr(t, err, "the first writer's numbers")
	second := make(chan error, 1)
	var n2 any
	go func() {
		second <- pgx.BeginFunc(ctx, c2, func(tx pgx.Tx) error {
			nums, err := b.numbers(ctx, tx, b.workspace, found("search.second"))
			if err == nil {
				n2, err = nums.List([]string{"search.second"})
			}
			return err
		})
	}()
	waitForLock(ctx, t, cs, c2.PgConn().PID())
	mustNoErr(t, tx1.Commit(ctx), "the first commit")
	mustNoErr(t, <-second, "the second writer")
	n1, err := first.List([]string{"search.first"})
	mustNoErr(t, err, "the first number")
	if n1 == n2 {
		t.Errorf("both addresses numbered %v", n1)
	}
}

// waitForLock returns once the backend pid waits for a lock.
func waitForLock(ctx context.Context, t *testing.T, cs string, pid uint32) {
	t.Helper()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	for waiting := false; !waiting; {
		mustNoErr(t, c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock')`, int64(pid)).Scan(&waiting), "waiting for the second writer's lock")
	}
}

// TestAddressChangesCounted: every statement that adds, renames or
// removes rows of addresses raises the count of its workspace's changes
// (schema 16), which tells a reader to read the names again; under a
// push's session_replication_role = replica too.
func TestAddressChangesCounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, c, count := countedSchema(t, 10)
	last := int64(-1)
	for _, q := range []string{
		`SELECT 1`,
		`INSERT INTO {s}.addresses (workspace, n, address) SELECT workspace, max(n) + 1, 'search.new' FROM {s}.addresses GROUP BY workspace`,
		`UPDATE {s}.addresses SET address = 'search.newer' WHERE address = 'search.new'`,
		`DELETE FROM {s}.addresses WHERE address = 'search.newer'`,
		`BEGIN; SET LOCAL session_replication_role = replica;
		INSERT INTO {s}.addresses (workspace, n, address) SELECT workspace, max(n) + 1, 'search.pushed' FROM {s}.addresses GROUP BY workspace; COMMIT`,
	} {
		_, err := c.Exec(ctx, b.sql(q))
		mustNoErr(t, err, "%s", q)
		n := count()
		if n <= last {
			t.Errorf("after %s, the count of the addresses' changes is %d, was %d", q, n, last)
		}
		last = n
	}
}

// TestPushGoesOnCounting: a push (force) writes the workspace's row and
// its addresses again; the count of the addresses' changes goes on from
// the row's, not from 0, so that a reader who knew the old names (their
// count) reads the pushed ones.
func TestPushGoesOnCounting(t *testing.T) {
	t.Parallel()
	b, c, count := countedSchema(t, 300)
	const before = 1000
	_, err := c.Exec(context.Background(), b.sql(`UPDATE {s}.workspaces SET addresses_changed = $1`), before)
	mustNoErr(t, err, "the count")
	mustNoErr(t, b.Push(backendtest.Fold(t, backendtest.Events()), true), "push again")
	if n := count(); n <= before {
		t.Errorf("after a push, the count of the addresses' changes is %d, was %d", n, before)
	}
}

// countedSchema is a schema of its own holding backendtest.ManyPeople(n),
// its backend, a connection to it, and the workspace's count of the
// addresses' changes.
func countedSchema(t *testing.T, n int) (*Backend, *pgx.Conn, func() int64) {
	t.Helper()
	cs := testConnStr(t)
	b := newPG(t, cs, pooledSchema(t, cs), "", alice)
	mustNoErr(t, b.Push(backendtest.ManyPeople(t, n), false), "push")
	ctx := context.Background()
	c, err := b.writable(ctx)
	mustNoErr(t, err, "connect")
	return b, c, func() int64 {
		var n int64
		mustNoErr(t, c.QueryRow(ctx, b.sql(`SELECT addresses_changed FROM {s}.workspaces WHERE name = $1`), b.workspace).Scan(&n), "the count")
		return n
	}
}

// TestNamesOfAWorkspaceMadeAgain: a store that reads live (unpinned by
// Writable) keeps the names it read; the workspace deleted and made
// again under its name, its count of the addresses' changes brought to
// the one the store knew, the store's next read gives the new
// workspace's names (sqlstate's namesKey: the count and created_at).
func TestNamesOfAWorkspaceMadeAgain(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	b := newPG(t, cs, pooledSchema(t, cs), "again", alice)
	whole := backendtest.ManyPeople(t, 20)
	mustNoErr(t, b.CreateWorkspace(b.workspace), "create")
	mustNoErr(t, b.Push(whole, false), "push")
	var id string
	for _, p := range whole.People {
		if len(p.FoundBy) > 0 {
			id = p.ID
			break
		}
	}
	base, err := backend.OpenBase(b)
	mustNoErr(t, err, "open base")
	defer base.Close()
	_, err = base.Writable()
	mustNoErr(t, err, "writable")
	first, err := base.Person(id)
	mustNoErr(t, err, "read")
	ctx := context.Background()
	c, err := b.writable(ctx)
	mustNoErr(t, err, "connect")
	var changed int64
	mustNoErr(t, c.QueryRow(ctx, b.sql(`SELECT addresses_changed FROM {s}.workspaces WHERE name = $1`), b.workspace).Scan(&changed), "the count")
	mustNoErr(t, b.DeleteWorkspace(b.workspace, true), "delete")
	mustNoErr(t, b.CreateWorkspace(b.workspace), "create again")
	mustNoErr(t, b.Push(whole, false), "push again")
	_, err = c.Exec(ctx, b.sql(`UPDATE {s}.addresses SET address = address || '_again' WHERE workspace = $1`), b.workspace)
	mustNoErr(t, err, "rename")
	_, err = c.Exec(ctx, b.sql(`UPDATE {s}.workspaces SET addresses_changed = $2 WHERE name = $1`), b.workspace, changed)
	mustNoErr(t, err, "the count")
	again, err := base.Person(id)
	mustNoErr(t, err, "read again")
	if len(again.FoundBy) != len(first.FoundBy) || !strings.HasSuffix(again.FoundBy[0], "_again") {
		t.Errorf("the workspace made again, %s found by %q, want the new names (%q with _again)", id, again.FoundBy, first.FoundBy)
	}
}

// TestMigrateSchema16: a schema of version 16 (the enrichments' and
// histories' addresses as texts, the copying block in extra) gets them
// numbered when a command opens it (version 17): each workspace's
// commonest block numbered 0 (the column's default), the other
// addresses after found_by's, the copying block out of extra, and the
// state read the same.
func TestMigrateSchema16(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	old, schema, c := schemaAt(t, cs, 16)
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO {s}.workspaces (name, lineage, serial, format_version, created_at) VALUES ('default', 'lin-1', 7, 1, now()), ('other', 'lin-2', 1, 1, now())`,
		`INSERT INTO {s}.addresses (workspace, n, address) VALUES ('default', 1, 'search.a')`,
		`INSERT INTO {s}.people (workspace, id, found_by) VALUES ('default', 'd1', '{1}'), ('default', 'd2', '{1}'), ('default', 'd3', '{1}'),
			('default', 'd4', '{1}'), ('other', 'o1', NULL)`,
		`INSERT INTO {s}.enrichments (workspace, person_id, enriched_at, by_address, email, extra) VALUES
			('default', 'd1', now(), 'enrich.contacts', 'd1@x.example', NULL), ('default', 'd2', now(), 'enrich.contacts', '', NULL),
			('default', 'd3', now(), 'enrich.contacts', '', '{"kept": 1}'), ('default', 'd4', now(), 'reused:dach', '', '{"copied_by": "enrich.contacts"}'),
			('other', 'o1', now(), 'enrich.other', '', NULL)`,
		`INSERT INTO {s}.person_history (workspace, person_id, n, field, value_before, value_after, at, by_address, call) VALUES
			('default', 'd1', 0, 'title', 'CTO', 'CEO', now(), 'search.a', 'c1'), ('default', 'd2', 0, 'title', 'A', 'B', now(), 'profile.d2', 'c2')`,
	} {
		_, err := c.Exec(ctx, old.sql(q))
		mustNoErr(t, err, "insert")
	}
	old.mu.Unlock()
	s, err := newPG(t, cs, schema, "", bob).Load()
	mustNoErr(t, err, "load of a version 16 schema")
	got := func(id string) string {
		p := s.People[id]
		if p == nil || p.Enrichment == nil {
			return "-"
		}
		out := p.Enrichment.By + "/" + p.Enrichment.CopiedBy + "/" + p.Enrichment.Result.Email
		for _, h := range p.History {
			out += " " + h.By + ":" + h.After
		}
		return out
	}
	for id, want := range map[string]string{"d1": "enrich.contacts//d1@x.example search.a:CEO", "d2": "enrich.contacts// profile.d2:B",
		"d3": "enrich.contacts//", "d4": "reused:dach/enrich.contacts/"} {
		if g := got(id); g != want {
			t.Errorf("person %s after the migration: %q, want %q", id, g, want)
		}
	}
	var v int
	mustNoErr(t, c.QueryRow(ctx, old.sql(`SELECT version FROM {s}.schema_version`)).Scan(&v), "version")
	var addrs, rows []string
	mustNoErr(t, c.QueryRow(ctx, old.sql(`SELECT array_agg(workspace || ':' || n || '=' || address ORDER BY workspace, n) FROM {s}.addresses`)).Scan(&addrs), "addresses")
	mustNoErr(t, c.QueryRow(ctx, old.sql(`SELECT array_agg(person_id || ':' || by_n || '/' || coalesce(copied_n::text, '-') || '/' || coalesce(extra::text, '-') ORDER BY person_id)
		FROM {s}.enrichments`)).Scan(&rows), "enrichments")
	if v != SchemaVersion {
		t.Errorf("schema version %d after migration, want %d", v, SchemaVersion)
	}
	if w := []string{"default:0=enrich.contacts", "default:1=search.a", "default:2=profile.d2", "default:3=reused:dach", "other:0=enrich.other"}; !slices.Equal(addrs, w) {
		t.Errorf("addresses %q, want %q", addrs, w)
	}
	if w := []string{"d1:0/-/-", "d2:0/-/-", `d3:0/-/{"kept": 1}`, "d4:3/0/{}", "o1:0/-/-"}; !slices.Equal(rows, w) {
		t.Errorf("enrichments' numbers %q, want %q", rows, w)
	}
}
