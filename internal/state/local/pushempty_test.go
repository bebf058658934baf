package local

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// A push --force, through Go or copied in SQLite, builds a new database
// and swaps it in when the database holds only its workspace's rows, and
// arrives identical; beside another workspace's rows it deletes its own
// in place and keeps the others.
func TestPushForceEmptiesThePeoplesTables(t *testing.T) {
	dir := t.TempDir()
	first, second := backendtest.ManyPeople(t, 700), backendtest.ManyPeople(t, 500)
	src := filepath.Join(dir, "src", "state.db")
	must(t, NewStore(src).Save(second))
	ws := pushTarget(t, filepath.Join(dir, "to"), state.DefaultWorkspace, first, nil)
	push := func(copied, wantSwapped, wantEmptied bool) {
		t.Helper()
		var st backend.Stream = backend.MemoryStream(second, "the second state")
		if copied {
			var err error
			st, err = backend.OpenStream(Open(src))
			must(t, err)
			defer st.Close()
		}
		before, err := os.Stat(ws.db.path)
		must(t, err)
		_, err = ws.PushStream(st, true)
		must(t, err)
		after, err := os.Stat(ws.db.path)
		must(t, err)
		if swapped := !os.SameFile(before, after); swapped != wantSwapped {
			t.Fatalf("copied %v: the database was swapped: %v; want %v", copied, swapped, wantSwapped)
		}
		if ws.db.emptied != wantEmptied {
			t.Fatalf("copied %v: the push emptied the people's tables: %v; want %v", copied, ws.db.emptied, wantEmptied)
		}
		got, err := ws.Load()
		must(t, err)
		if !backendtest.SameCanon(t, got, second) {
			t.Fatalf("copied %v: the state pushed with --force differs", copied)
		}
		first = second
	}
	push(false, true, false)
	push(true, true, false)

	db, err := sql.Open("sqlite", ws.db.path+"?_pragma=foreign_keys(0)")
	must(t, err)
	defer db.Close()
	for _, table := range []string{"workspaces", "people", "enrichments", "person_history"} {
		col := "workspace"
		if table == "workspaces" {
			col = "name"
		}
		_, err := db.Exec(`CREATE TEMP TABLE o AS SELECT * FROM ` + table + `; UPDATE o SET ` + col + ` = 'other';
			INSERT INTO ` + table + ` SELECT * FROM o; DROP TABLE o`)
		must(t, err)
	}
	count := func() (n int) {
		must(t, db.QueryRow(`SELECT (SELECT count(*) FROM people WHERE workspace = 'other') + (SELECT count(*) FROM enrichments WHERE workspace = 'other')
			+ (SELECT count(*) FROM person_history WHERE workspace = 'other')`).Scan(&n))
		return n
	}
	others := count()
	if others < len(second.People) {
		t.Fatalf("the other workspace holds %d rows", others)
	}
	push(false, false, false)
	push(true, false, false)
	if n := count(); n != others {
		t.Fatalf("the other workspace holds %d rows after the pushes; it held %d", n, others)
	}
}

// A push --force over a database keeps the database it replaces as its
// backup, whole (a copy page by page), and nothing else beside it.
func TestPushForceKeepsTheReplacedDatabase(t *testing.T) {
	dir := t.TempDir()
	first, second := backendtest.ManyPeople(t, 700), backendtest.ManyPeople(t, 500)
	ws := pushTarget(t, dir, state.DefaultWorkspace, first, nil)
	second.ErasureWritten() // as read from a file: a push of an erasure removes the backup
	must(t, ws.Push(second, true))
	kept := filepath.Join(t.TempDir(), "kept.db") // read as a database
	must(t, os.Link(ws.Store.BackupPath(), kept))
	old, err := Open(kept).Load()
	must(t, err)
	if !backendtest.SameCanon(t, old, first) {
		t.Fatal("the backup is not the state replaced")
	}
	got, err := ws.Load()
	must(t, err)
	if !backendtest.SameCanon(t, got, second) {
		t.Fatal("the state pushed with --force differs")
	}
	entries, err := os.ReadDir(filepath.Dir(ws.db.path))
	must(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{".gitignore", "state.db", "state.db.backup"}; !slices.Equal(names, want) {
		t.Fatalf("beside the state: %q; want %q", names, want)
	}
}
