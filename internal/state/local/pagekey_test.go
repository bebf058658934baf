package local

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

// oddPages and oddSearch: page names whose key the engine's lower() does
// not give, and a search finding a person of each.
var (
	oddPages  = statetest.OddPages
	oddSearch = statetest.OddSearch
)

// checkPageKeys fails unless every person's row of the database at path
// has the page key of its page name: in page_key (column "page_key"), or
// in the key the index is on (sqlstate.PageKeyOf).
func checkPageKeys(t *testing.T, path, column, when string) {
	t.Helper()
	db, err := sql.Open("sqlite", path+sqliteDSN)
	must(t, err)
	defer db.Close()
	rows, err := db.Query(`SELECT workspace, id, page_name, ` + column + ` FROM people`)
	must(t, err)
	defer rows.Close()
	n := 0
	for rows.Next() {
		var ws, id, page, key string
		must(t, rows.Scan(&ws, &id, &page, &key))
		if want := state.PageKey(page); key != want {
			t.Errorf("%s: person %s of workspace %q, page name %q: %s %q, want %q", when, id, ws, page, column, key, want)
		}
		n++
	}
	must(t, rows.Err())
	if n == 0 {
		t.Fatalf("%s: no people in %s", when, path)
	}
}

// TestPageKeysWritten: every writer of people's rows writes their page
// key: a state saved whole, a commit of an apply's calls, a push.
func TestPageKeysWritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a", ".leadsync", "state.db")
	must(t, NewStore(path).Save(backendtest.Fold(t, append(demoEvents(), oddSearch("search.odd", 0)))))
	checkPageKeys(t, path, "page_key", "after a save")
	backendtest.Apply(t, Open(path), []state.Event{oddSearch("search.more", 100)})
	checkPageKeys(t, path, "page_key", "after a commit")
	st, err := backend.OpenStream(Open(path))
	must(t, err)
	defer st.Close()
	to := filepath.Join(dir, "b", ".leadsync", "state.db")
	ws, err := NewWorkspaces(to, nil).Open(state.DefaultWorkspace)
	must(t, err)
	_, err = ws.PushStream(st, false)
	must(t, err)
	checkPageKeys(t, to, "page_key", "after a push")
}

// toSchema3 takes the database at path back to schema version 3: no page
// keys, the page names' index.
func toSchema3(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path+sqliteDSN)
	must(t, err)
	defer db.Close()
	_, err = db.Exec(`DROP INDEX people_page_key; ALTER TABLE people DROP COLUMN page_key;
		CREATE INDEX people_page_name ON people (workspace, page_name); ` + beforeSchema7 + ` UPDATE schema_version SET version = 3`)
	must(t, err)
}

// TestMigrateSchema3: a database of schema version 3 gets the people's
// page keys, in Go's lower case, and their index the first time a command
// opens it, writing only the rows whose key SQLite's lower() does not
// give; its version becomes 4, its state is the same, and SelectPaged
// finds people by key through the index.
func TestMigrateSchema3(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".leadsync", "state.db")
	store := NewStore(path)
	must(t, store.Save(backendtest.Fold(t, append(demoEvents(), oddSearch("search.odd", 0)))))
	want, err := store.Load()
	must(t, err)
	must(t, store.Close())
	toSchema3(t, path)

	again := NewStore(path)
	defer again.Close()
	base, err := again.OpenBase()
	must(t, err)
	must(t, base.Close())
	checkPageKeys(t, path, sqlstate.PageKeyOf, "after the migration")
	db, err := sql.Open("sqlite", path+sqliteDSN)
	must(t, err)
	defer db.Close()
	var rewritten int
	must(t, db.QueryRow(`SELECT count(*) FROM people WHERE page_key <> ''`).Scan(&rewritten))
	if rewritten != 5 {
		t.Errorf("the migration wrote the page keys of %d people, want the 5 whose page names are not ASCII", rewritten)
	}
	var v int
	var indexes string
	must(t, db.QueryRow(`SELECT version FROM schema_version`).Scan(&v))
	must(t, db.QueryRow(`SELECT group_concat(name) FROM sqlite_master WHERE type = 'index' AND name IN ('people_page_key', 'people_page_name')`).Scan(&indexes))
	if v != sqlstate.SchemaVersion || indexes != "people_page_key" {
		t.Fatalf("after opening: schema version %d, indexes %q; want version %d and people_page_key alone", v, indexes, sqlstate.SchemaVersion)
	}
	got, err := again.Load()
	must(t, err)
	if canon := backendtest.Canon; canon(t, got) != canon(t, want) {
		t.Errorf("the migrated database holds another state:\n%s\nwant\n%s", canon(t, got), canon(t, want))
	}
	checkPaged(t, db)
	checkPageless(t, db)
	checkPartialIndexes(t, db)
}

// checkPartialIndexes: in a database migrated to schema 4, SQLite
// answers the questions of the partial indexes from them, not from
// people_page_key (made last), which reads every person of the
// workspace.
func checkPartialIndexes(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, c := range []struct{ query, index string }{
		{sqlstate.CountUnlisted, "people_unlisted"},
		{sqlstate.SelectTracks, "people_tracked"},
		{sqlstate.SelectTracked, "people_tracked"},
		{sqlstate.CountTracks, "people_tracked"},
	} {
		q := sqlstate.SQLite.Rewrite(c.query)
		args := []any{state.DefaultWorkspace}
		if strings.Contains(q, "?2") {
			args = append(args, "track.x")
		}
		if plan := explain(t, db, q, args...); !strings.Contains(plan, "INDEX "+c.index+" ") {
			t.Errorf("%s is not answered from the index %s:\n%s", q, c.index, plan)
		}
	}
}

// checkPageless: SelectPageless finds the people of oddPages without a
// page name, and SQLite answers it from the index people_page_key (an
// enrich block's plan asks it of millions of people).
func checkPageless(t *testing.T, db *sql.DB) {
	t.Helper()
	q := sqlstate.SQLite.Rewrite(sqlstate.SelectPageless)
	rows, err := db.Query(q, state.DefaultWorkspace)
	must(t, err)
	var got []string
	for rows.Next() {
		var id string
		must(t, rows.Scan(&id))
		got = append(got, id)
	}
	must(t, rows.Err())
	rows.Close()
	var want string
	must(t, db.QueryRow(`SELECT group_concat(id, ',') FROM (SELECT id FROM people WHERE page_name = '' ORDER BY id)`).Scan(&want))
	sort.Strings(got)
	if strings.Join(got, ",") != want || !strings.Contains(want, fmt.Sprintf("odd%d", len(oddPages)-1)) {
		t.Errorf("SelectPageless found %q, want %s", got, want)
	}
	plan := explain(t, db, q, state.DefaultWorkspace)
	if !strings.Contains(plan, "USING INDEX people_page_key (workspace=? AND <expr>=?)") || strings.Contains(plan, "SCAN people") {
		t.Errorf("SelectPageless is not answered from the index people_page_key:\n%s", plan)
	}
}

// checkPaged: SelectPaged finds by their keys exactly the people of
// oddPages whose page name has the key (in any letter case), and SQLite
// answers it from the index people_page_key, reading no table whole.
func checkPaged(t *testing.T, db *sql.DB) {
	t.Helper()
	keys := []string{"éLISE", "kim", "zoë_b", "anna_mueller", "i̇lker", "ilker", "ǆemal", "nobody"}
	for i := range keys {
		keys[i] = state.PageKey(keys[i])
	}
	arg, err := json.Marshal(keys)
	must(t, err)
	q := sqlstate.SQLite.Rewrite(sqlstate.SelectPaged)
	rows, err := db.Query(q, state.DefaultWorkspace, string(arg))
	must(t, err)
	var got []string
	for rows.Next() {
		var id, page string
		must(t, rows.Scan(&id, &page))
		got = append(got, page)
	}
	must(t, rows.Err())
	rows.Close()
	var want []string
	for _, page := range oddPages {
		for _, k := range keys {
			if page != "" && state.PageKey(page) == k {
				want = append(want, page)
				break
			}
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, "|") != strings.Join(want, "|") || len(want) < 6 {
		t.Errorf("SelectPaged found %q, want %q", got, want)
	}
	plan := explain(t, db, q, state.DefaultWorkspace, string(arg))
	if !strings.Contains(plan, "SEARCH people USING INDEX people_page_key (workspace=? AND <expr>=?)") || strings.Contains(plan, "SCAN people") {
		t.Errorf("SelectPaged is not answered from the index people_page_key:\n%s", plan)
	}
}

// explain is SQLite's plan of q, one step a line.
func explain(t *testing.T, db *sql.DB, q string, args ...any) string {
	t.Helper()
	rows, err := db.Query(`EXPLAIN QUERY PLAN `+q, args...)
	must(t, err)
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		must(t, rows.Scan(&id, &parent, &notused, &detail))
		lines = append(lines, detail)
	}
	must(t, rows.Err())
	return strings.Join(lines, "\n")
}
