package local

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// A push --force, through Go or copied in SQLite, empties the people's
// tables a page at a time when they hold only its workspace's rows, and
// arrives identical; beside another workspace's rows it deletes its own
// and keeps the others.
func TestPushForceEmptiesThePeoplesTables(t *testing.T) {
	dir := t.TempDir()
	first, second := backendtest.ManyPeople(t, 700), backendtest.ManyPeople(t, 500)
	src := filepath.Join(dir, "src", "state.db")
	must(t, NewStore(src).Save(second))
	ws := pushTarget(t, filepath.Join(dir, "to"), state.DefaultWorkspace, first, nil)
	push := func(copied, wantEmptied bool) {
		t.Helper()
		var st backend.Stream = backend.MemoryStream(second, "the second state")
		if copied {
			var err error
			st, err = backend.OpenStream(Open(src))
			must(t, err)
			defer st.Close()
		}
		_, err := ws.PushStream(st, true)
		must(t, err)
		if ws.db.emptied != wantEmptied {
			t.Fatalf("copied %v: the push emptied the people's tables: %v; want %v", copied, ws.db.emptied, wantEmptied)
		}
		got, err := ws.Load()
		must(t, err)
		if backendtest.Canon(t, got) != backendtest.Canon(t, second) {
			t.Fatalf("copied %v: the state pushed with --force differs", copied)
		}
		first = second
	}
	push(false, true)
	push(true, true)

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
	push(false, false)
	push(true, false)
	if n := count(); n != others {
		t.Fatalf("the other workspace holds %d rows after the pushes; it held %d", n, others)
	}
}
