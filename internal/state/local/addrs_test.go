package local

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
	"github.com/leadsync/leadsync/internal/state/local/localtest"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
	"github.com/leadsync/leadsync/internal/testenv"
)

// beforeSchema8 takes a database back to schema version 7.
const beforeSchema8 = localtest.BeforeSchema8

// beforeSchema7 removes the count of the addresses' changes (schema
// version 7), which no migration before it knows, after beforeSchema8.
const beforeSchema7 = beforeSchema8 + `DROP TRIGGER addresses_added; DROP TRIGGER addresses_renamed; DROP TRIGGER addresses_removed;
	ALTER TABLE workspaces DROP COLUMN addresses_changed;`

// toSchema5 turns the numbered found_by of the database at path back into
// lists of texts, as schema version 5 kept them.
func toSchema5(t *testing.T, db *sql.DB) {
	t.Helper()
	_, err := db.Exec(`UPDATE people SET found_by = (SELECT v.found_by FROM people_found_by v WHERE v.workspace = people.workspace AND v.id = people.id);
		` + beforeSchema7 + ` DROP VIEW people_found_by; DROP TABLE addresses; UPDATE schema_version SET version = 5`)
	must(t, err)
}

// TestMigrateSchema5: a database of schema version 5 gets its addresses
// numbered the first time a command opens it: its version becomes 6,
// every found_by holds numbers, the view people_found_by shows the lists
// as they were, and the state read is the same.
func TestMigrateSchema5(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".leadsync", "state.db")
	store := NewStore(path)
	must(t, store.Save(backendtest.ManyPeople(t, 300)))
	want, err := store.Load()
	must(t, err)
	must(t, store.Close())
	db, err := sql.Open("sqlite", path+sqliteDSN)
	must(t, err)
	defer db.Close()
	toSchema5(t, db)
	var texts string
	must(t, db.QueryRow(`SELECT group_concat(found_by, ';') FROM (SELECT found_by FROM people ORDER BY id)`).Scan(&texts))

	again := NewStore(path)
	defer again.Close()
	got, err := again.Load()
	must(t, err)
	var v, named, unnumbered int
	var shown string
	must(t, db.QueryRow(`SELECT version FROM schema_version`).Scan(&v))
	must(t, db.QueryRow(`SELECT count(*) FROM addresses`).Scan(&named))
	must(t, db.QueryRow(`SELECT count(*) FROM people, json_each(people.found_by) j WHERE j.type <> 'integer'`).Scan(&unnumbered))
	must(t, db.QueryRow(`SELECT group_concat(found_by, ';') FROM (SELECT found_by FROM people_found_by ORDER BY id)`).Scan(&shown))
	if v != sqlstate.SchemaVersion || named == 0 || unnumbered != 0 {
		t.Fatalf("after opening: schema version %d, %d addresses numbered, %d found_by entries not numbers; want version %d, all numbered",
			v, named, unnumbered, sqlstate.SchemaVersion)
	}
	if shown != texts {
		t.Errorf("people_found_by shows\n%.500s\nwant the lists of schema 5\n%.500s", shown, texts)
	}
	if canon := backendtest.Canon; canon(t, got) != canon(t, want) {
		t.Errorf("the migrated database holds another state:\n%.2000s\nwant\n%.2000s", canon(t, got), canon(t, want))
	}
}

// TestCheckpointRenamesOntoANumberedAddress: a move onto an address that
// has a number already (a block removed earlier left it) gives every
// person found by the moved address that number, those the moved record
// does not list too (one kept after its lead list dropped them), and the
// state committed is the move folded into the state read whole.
func TestCheckpointRenamesOntoANumberedAddress(t *testing.T) {
	m := newMovedRecording(t)
	n := len(m.whole.Searches[m.from].LeadIDs) + 1
	_, err := m.db.Exec(`INSERT INTO addresses (workspace, n, address) SELECT workspace, max(n) + 100, 'search.moved' FROM addresses GROUP BY workspace;
		INSERT INTO people (workspace, id, found_by) SELECT workspace, 'unlisted', json_array(n) FROM addresses WHERE address = ?`, m.from)
	must(t, err)
	m.whole.People["unlisted"] = &state.Person{ID: "unlisted", FoundBy: []string{m.from}}
	must(t, m.rec.(interface{ Checkpoint(context.Context) error }).Checkpoint(context.Background()))
	if m.named(t, m.from) != 0 || m.named(t, "search.moved") != n {
		t.Errorf("after the write, %d people found by %s and %d by search.moved, want 0 and %d", m.named(t, m.from), m.from, m.named(t, "search.moved"), n)
	}
	must(t, m.rec.Close())
	must(t, m.base.Close())
	must(t, m.b.Commit(m.s))
	got, err := m.b.Load()
	must(t, err)
	m.sameAsWhole(t, got)
}

// TestMigrateSchema6: a database of schema version 6 gets the count of
// its addresses' changes the first time a command opens it: the column
// and the triggers of a new database, every one of them.
func TestMigrateSchema6(t *testing.T) {
	triggers := func(db *sql.DB) string {
		var s string
		must(t, db.QueryRow(`SELECT coalesce(group_concat(sql, ';'), '') FROM (SELECT sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name)`).Scan(&s))
		return s
	}
	dir := t.TempDir()
	fresh, old := filepath.Join(dir, "fresh.db"), filepath.Join(dir, "old.db")
	for _, path := range []string{fresh, old} {
		store := NewStore(path)
		must(t, store.Save(backendtest.ManyPeople(t, 20)))
		must(t, store.Close())
	}
	db, err := sql.Open("sqlite", old+sqliteDSN)
	must(t, err)
	defer db.Close()
	_, err = db.Exec(beforeSchema7 + ` UPDATE schema_version SET version = 6`)
	must(t, err)
	again := NewStore(old)
	defer again.Close()
	_, err = again.Load()
	must(t, err)
	want, err := sql.Open("sqlite", fresh+sqliteDSN)
	must(t, err)
	defer want.Close()
	var changed int
	must(t, db.QueryRow(`SELECT addresses_changed FROM workspaces`).Scan(&changed)) // the column
	if got, w := triggers(db), triggers(want); got != w || w == "" {
		t.Errorf("the migrated database's triggers:\n%s\nwant a new database's:\n%s", got, w)
	}
}

// TestPushGoesOnCounting: a push (force), copied in SQLite or passed
// through Go, into the database or built beside it and copied in (a
// reader keeps it open), goes on counting the addresses' changes from
// the workspace's count, so that a reader who knew the old names reads
// the pushed ones.
func TestPushGoesOnCounting(t *testing.T) {
	defer func(w time.Duration) { swapWait = w }(swapWait)
	swapWait = 50 * time.Millisecond
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "state.db")
	must(t, NewStore(src).Save(backendtest.Fold(t, backendtest.Events())))
	path := filepath.Join(dir, "to", ".leadsync", "state.db")
	ws, err := NewWorkspaces(path, nil).Open(state.DefaultWorkspace)
	must(t, err)
	_, err = ws.PushStream(backend.MemoryStream(backendtest.ManyPeople(t, 300), "the state"), false)
	must(t, err)
	db, err := sql.Open("sqlite", path+sqliteDSN)
	must(t, err)
	defer db.Close()
	_, err = db.Exec(`UPDATE workspaces SET addresses_changed = 1000`)
	must(t, err)
	last := int64(1000)
	push := func(open func() (backend.Stream, error)) func() error {
		return func() error {
			st, err := open()
			if err == nil {
				_, err = ws.PushStream(st, true)
				must(t, st.Close())
			}
			return err
		}
	}
	for _, write := range []struct {
		what string
		do   func() error
	}{
		{"a push copied in SQLite", push(func() (backend.Stream, error) { return backend.OpenStream(Open(src)) })},
		{"a push passed through Go", push(func() (backend.Stream, error) {
			return backend.MemoryStream(backendtest.ManyPeople(t, 300), "the state"), nil
		})},
		{"a state saved whole", func() error { return NewStore(path).Save(backendtest.Fold(t, backendtest.Events())) }},
	} {
		must(t, write.do())
		var n int64
		must(t, db.QueryRow(`SELECT addresses_changed FROM workspaces`).Scan(&n))
		if n <= last {
			t.Errorf("after %s, the count of the addresses' changes is %d, was %d", write.what, n, last)
		}
		last = n
	}
}

// TestMigrateSchema7: a database of schema version 7 (the enrichments'
// and histories' addresses as texts, the copying block in extra) gets
// them numbered the first time a command opens it: the commonest block
// numbered 0 (the column's default), the others after found_by's, the
// copying block out of extra, the columns and indexes those of a new
// database, and the state read the same.
func TestMigrateSchema7(t *testing.T) {
	dir := t.TempDir()
	fresh, old := filepath.Join(dir, "fresh.db"), filepath.Join(dir, "old.db")
	s := backendtest.Fold(t, backendtest.Events())
	for _, path := range []string{fresh, old} {
		must(t, NewStore(path).Save(s))
	}
	want, err := NewStore(fresh).Load()
	must(t, err)
	localtest.ToSchema7(t, old)
	db, err := sql.Open("sqlite", old+sqliteDSN)
	must(t, err)
	defer db.Close()
	var copies int
	must(t, db.QueryRow(`SELECT count(*) FROM enrichments WHERE json_extract(extra, '$.copied_by') IS NOT NULL`).Scan(&copies))
	if copies == 0 {
		t.Fatal("the version 7 database holds no copy to migrate")
	}
	again := NewStore(old)
	defer again.Close()
	got, err := again.Load()
	must(t, err)
	if canon := backendtest.Canon; canon(t, got) != canon(t, want) {
		t.Errorf("the migrated database holds another state:\n%.2000s\nwant\n%.2000s", canon(t, got), canon(t, want))
	}
	var v, inExtra int
	var zero, common string
	must(t, db.QueryRow(`SELECT version FROM schema_version`).Scan(&v))
	must(t, db.QueryRow(`SELECT count(*) FROM enrichments WHERE extra LIKE '%copied_by%'`).Scan(&inExtra))
	must(t, db.QueryRow(`SELECT address FROM addresses WHERE n = 0`).Scan(&zero))
	must(t, db.QueryRow(`SELECT a.address FROM enrichments e JOIN addresses a ON a.workspace = e.workspace AND a.n = e.by_n
		GROUP BY a.address ORDER BY count(*) DESC, a.address LIMIT 1`).Scan(&common))
	if v != sqlstate.SchemaVersion || inExtra != 0 || zero != common {
		t.Errorf("after opening: version %d (want %d), %d copying blocks left in extra, address 0 %q, the commonest block %q",
			v, sqlstate.SchemaVersion, inExtra, zero, common)
	}
	wantDB, err := sql.Open("sqlite", fresh+sqliteDSN)
	must(t, err)
	defer wantDB.Close()
	for _, table := range []string{"enrichments", "person_history"} {
		if g, w := tableShape(t, db, table), tableShape(t, wantDB, table); g != w {
			t.Errorf("the migrated %s:\n%s\nwant a new database's:\n%s", table, g, w)
		}
	}
}

// tableShape is the columns of table (name, type, NOT NULL, default) and
// the SQL of its indexes.
func tableShape(t *testing.T, db *sql.DB, table string) string {
	t.Helper()
	var s string
	must(t, db.QueryRow(`SELECT group_concat(name || ' ' || type || ' ' || "notnull" || ' ' || coalesce(dflt_value, '-'), ', ') FROM pragma_table_info(?)`, table).Scan(&s))
	var idx sql.NullString
	must(t, db.QueryRow(`SELECT group_concat(sql, '; ') FROM (SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name)`, table).Scan(&idx))
	return s + "\n" + idx.String
}

// TestEnrichMoveRenamesOneRow: a move of an enrich block or of a call
// its people's histories name, folded into a partial state and written
// (the recorder's Checkpoint), renames the address's one row, the
// enrichments' and histories' rows as they were; onto an address
// numbered already, their rows take its number. Either way the state
// read after is the move folded into the state read whole.
func TestEnrichMoveRenamesOneRow(t *testing.T) {
	rows := func(db *sql.DB) (out string) {
		must(t, db.QueryRow(`SELECT group_concat(r, ';') FROM (SELECT person_id || ':' || by_n || '/' || coalesce(copied_n, '-') AS r FROM enrichments
			UNION ALL SELECT person_id || '#' || n || ':' || by_n FROM person_history ORDER BY 1)`).Scan(&out))
		return out
	}
	for _, c := range []struct{ from, to string }{{"enrich.contacts", "enrich.leads"}, {"search.movers", "search.shakers"}} {
		for _, numbered := range []bool{false, true} {
			var before string
			m := movedRecordingOf(t, backendtest.Fold(t, backendtest.Events()), c.from, c.to, func(db *sql.DB) {
				if numbered {
					_, err := db.Exec(`INSERT INTO addresses (workspace, n, address) SELECT workspace, max(n) + 100, ? FROM addresses GROUP BY workspace`, c.to)
					must(t, err)
				}
				before = rows(db)
			})
			must(t, m.rec.(interface{ Checkpoint(context.Context) error }).Checkpoint(context.Background()))
			if after := rows(m.db); (after == before) == numbered {
				t.Errorf("%s onto a numbered address %v: the rows changed %v:\n%s\nbefore\n%s", c.from, numbered, after != before, after, before)
			}
			must(t, m.rec.Close())
			must(t, m.base.Close())
			must(t, m.b.Commit(m.s))
			got, err := m.b.Load()
			must(t, err)
			must(t, m.whole.Fold(m.ev))
			if canon := backendtest.Canon; canon(t, got) != canon(t, m.whole) {
				t.Errorf("%s onto a numbered address %v: the state read\n%.3000s\nwant the move folded in\n%.3000s", c.from, numbered, canon(t, got), canon(t, m.whole))
			}
		}
	}
}

// TestPushFromSchema7: a push from a database of schema version 7 (the
// enrichments' and histories' addresses as texts) writes the same state,
// read from a migrated copy: the source is left byte for byte as it was
// (an older leadsync still reads it), and the copy is removed.
func TestPushFromSchema7(t *testing.T) {
	dir := t.TempDir()
	src, want := schema7Source(t, dir)
	before := sourceFolder(t, src)
	to := pushFrom(t, src, dir)
	if after := sourceFolder(t, src); after != before {
		t.Errorf("the push changed its source's folder:\n%s\nwant\n%s", after, before)
	}
	got, err := NewStore(to).Load()
	must(t, err)
	if canon := backendtest.Canon; canon(t, got) != canon(t, want) {
		t.Errorf("pushed:\n%.1500s\nwant\n%.1500s", canon(t, got), canon(t, want))
	}
}

// TestPushFromSchema7WithPendingCalls: a push from a database of schema
// version 7 that holds the calls of an interrupted apply not folded in
// (its events table) carries them, read whole from the migrated copy.
// Into a new database and over one that holds state (--force), the state
// pushed is that apply's, every paid call and the enrichment in flight
// included; the source is left byte for byte, its calls still waiting.
func TestPushFromSchema7WithPendingCalls(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "state.db")
	want := localtest.InterruptedAtSchema7(t, Open(src), src)
	before := sourceFolder(t, src)
	for _, force := range []bool{false, true} {
		to := filepath.Join(dir, fmt.Sprint("into-", force), ".leadsync", "state.db")
		if force {
			must(t, NewStore(to).Save(backendtest.ManyPeople(t, 30)))
		}
		pushTo(t, src, to, force)
		got, err := NewStore(to).Load()
		must(t, err)
		if canon := backendtest.Canon; canon(t, got) != canon(t, want) {
			t.Errorf("force %v: pushed\n%.1500s\nwant the interrupted apply's state\n%.1500s", force, canon(t, got), canon(t, want))
		}
	}
	if after := sourceFolder(t, src); after != before {
		t.Errorf("the push changed its source's folder:\n%s\nwant\n%s", after, before)
	}
}

// schema7Source writes the events' state into dir/src/state.db at schema
// version 7 and returns its path and the state it holds.
func schema7Source(t *testing.T, dir string) (string, *state.State) {
	t.Helper()
	src := filepath.Join(dir, "src", "state.db")
	must(t, NewStore(src).Save(backendtest.Fold(t, backendtest.Events())))
	want, err := NewStore(src).Load()
	must(t, err)
	localtest.ToSchema7(t, src)
	return src, want
}

// pushFrom pushes the state database src into a new workspace under dir
// and returns the path it was pushed to.
func pushFrom(t *testing.T, src, dir string) string {
	t.Helper()
	to := filepath.Join(dir, "b", ".leadsync", "state.db")
	pushTo(t, src, to, false)
	return to
}

// pushTo pushes the state database src into the default workspace whose
// state is at to, as state push --from src does (--force when force).
func pushTo(t *testing.T, src, to string, force bool) {
	t.Helper()
	st, err := backend.OpenStream(Open(src))
	must(t, err)
	ws, err := NewWorkspaces(to, nil).Open(state.DefaultWorkspace)
	must(t, err)
	_, err = ws.PushStream(st, force)
	st.Close()
	must(t, err)
}

// TestPushFromAnOlderSourceRemovesOnlyItsDeadCopies: a push from an older
// source removes the migrated copies a killed push left beside it (their
// process gone), and nothing else: not a copy of a push still running,
// nor a user's file whose name merely looks alike.
func TestPushFromAnOlderSourceRemovesOnlyItsDeadCopies(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		testenv.Skip(t, "no true(1) to get the ID of a finished process")
	}
	dir := t.TempDir()
	src, _ := schema7Source(t, dir)
	copyOf := func(pid int) string {
		return filepath.Join(filepath.Dir(src), ".state.db.reading-"+strconv.Itoa(pid)+"-123.db")
	}
	dead, running := copyOf(cmd.Process.Pid), copyOf(os.Getppid())
	users := filepath.Join(filepath.Dir(src), ".reading-list")
	two := time.Now().Add(-2 * time.Minute)
	for _, f := range []string{dead, dead + "-wal", running, users} {
		must(t, os.WriteFile(f, []byte("x"), 0o600))
		must(t, os.Chtimes(f, two, two))
	}
	pushFrom(t, src, dir)
	for _, f := range []string{dead, dead + "-wal"} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s, left by a push that no longer runs, is still there: %v", filepath.Base(f), err)
		}
	}
	for _, f := range []string{running, users} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(f), err)
		}
	}
}

// sourceFolder is the names of the files beside path and its bytes' hash.
func sourceFolder(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	entries, err := os.ReadDir(filepath.Dir(path))
	must(t, err)
	names := fmt.Sprintf("%x", sha256.Sum256(b))
	for _, e := range entries {
		names += " " + e.Name()
	}
	return names
}
