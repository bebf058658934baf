package pg

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/state"
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

// checkPageKeys fails unless every person's row of the schema has the
// page key of its page name: in page_key (column "page_key"), or in the
// key the index is on (sqlstate.PGPageKey).
func checkPageKeys(t *testing.T, b *Backend, column, when string) {
	t.Helper()
	ctx := context.Background()
	c, err := connect(ctx, testConnStr(t))
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	rows, err := c.Query(ctx, b.sql(`SELECT workspace, id, page_name, `+column+` FROM {s}.people`))
	mustNoErr(t, err, "read the people")
	defer rows.Close()
	n := 0
	for rows.Next() {
		var ws, id, page, key string
		mustNoErr(t, rows.Scan(&ws, &id, &page, &key), "scan")
		if want := state.PageKey(page); key != want {
			t.Errorf("%s: person %s of workspace %q, page name %q: %s %q, want %q", when, id, ws, page, column, key, want)
		}
		n++
	}
	mustNoErr(t, rows.Err(), "read the people")
	if n == 0 {
		t.Fatalf("%s: no people", when)
	}
}

// TestPageKeysWritten: every writer of people's rows writes their page
// key: a push (COPY), a commit of an apply's calls.
func TestPageKeysWritten(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	b := newPG(t, cs, pooledSchema(t, cs), "", alice)
	mustNoErr(t, b.Push(backendtest.Fold(t, append(events(), oddSearch("search.odd", 0))), false), "push")
	checkPageKeys(t, b, "page_key", "after a push")
	apply(t, b, []state.Event{oddSearch("search.more", 100)})
	checkPageKeys(t, b, "page_key", "after a commit")
}

// TestMigrateSchema12: a schema of version 12 gets the people's page
// keys, in Go's lower case, and their index when a command opens it,
// rewriting only the rows whose page name is not ASCII; its state is the
// same, and SelectPaged finds people by key through the index.
func TestMigrateSchema12(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	old, schema, c := schemaAt(t, cs, 12)
	ctx := context.Background()
	var err error
	_, err = c.Exec(ctx, old.sql(`INSERT INTO {s}.workspaces (name, lineage, serial, format_version, created_at) VALUES ('default', 'lin-1', 7, 1, now())`))
	mustNoErr(t, err, "insert")
	for i, page := range oddPages {
		_, err = c.Exec(ctx, old.sql(`INSERT INTO {s}.people (workspace, id, page_name, full_name, found_by) VALUES ('default', $1, $2, 'Odd', '{search.a}')`), fmt.Sprintf("n%d", i), page)
		mustNoErr(t, err, "insert")
	}
	old.mu.Unlock()
	s, err := newPG(t, cs, schema, "", bob).Load()
	mustNoErr(t, err, "load of a version 12 schema")
	if len(s.People) != len(oddPages) || s.People["n1"].Lead.PageName != "ÉLISE" {
		t.Fatalf("migrated state: %d people, n1 %+v", len(s.People), s.People["n1"])
	}
	checkPageKeys(t, old, sqlstate.PGPageKey, "after the migration")
	var rewritten int
	mustNoErr(t, c.QueryRow(ctx, old.sql(`SELECT count(*) FROM {s}.people WHERE page_key <> ''`)).Scan(&rewritten), "count")
	if rewritten != 5 {
		t.Errorf("the migration wrote the page keys of %d people, want the 5 whose page names are not ASCII", rewritten)
	}
	// Enough people for the planner to prefer the index's both columns.
	_, err = c.Exec(ctx, old.sql(`INSERT INTO {s}.people (workspace, id, page_name, page_key)
		SELECT 'default', 'f' || i, 'Filler-' || i, 'filler-' || i FROM generate_series(1, 5000) AS i; ANALYZE {s}.people`))
	mustNoErr(t, err, "insert")
	checkPaged(t, old)
	checkPageless(t, old)
}

// checkPageless: SelectPageless finds the people without a page name,
// and PostgreSQL answers it from the index people_page_key (an enrich
// block's plan asks it of millions of people).
func checkPageless(t *testing.T, b *Backend) {
	t.Helper()
	ctx := context.Background()
	c, err := connect(ctx, testConnStr(t))
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	q := b.sql(b.dialect.Rewrite(sqlstate.SelectPageless))
	rows, err := c.Query(ctx, q, "default")
	mustNoErr(t, err, "pageless")
	var got []string
	for rows.Next() {
		var id string
		mustNoErr(t, rows.Scan(&id), "scan")
		got = append(got, id)
	}
	mustNoErr(t, rows.Err(), "pageless")
	var want string
	mustNoErr(t, c.QueryRow(ctx, b.sql(`SELECT string_agg(id, ',' ORDER BY id COLLATE "C") FROM {s}.people WHERE workspace = 'default' AND page_name = ''`)).Scan(&want), "want")
	sort.Strings(got)
	if strings.Join(got, ",") != want || want == "" {
		t.Errorf("SelectPageless found %q, want %s", got, want)
	}
	if plan := explain(t, c, q, "default"); !strings.Contains(plan, "people_page_key") {
		t.Errorf("SelectPageless is not answered from the index people_page_key:\n%s", plan)
	}
}

// checkPaged: SelectPaged finds by their keys exactly the people of
// oddPages whose page name has the key, and PostgreSQL answers it from
// the index people_page_key (its condition the keys), with sequential
// scans turned off.
func checkPaged(t *testing.T, b *Backend) {
	t.Helper()
	keys := []string{"éLISE", "kim", "zoë_b", "anna_mueller", "ilker", "ǆemal", "nobody"}
	for i := range keys {
		keys[i] = state.PageKey(keys[i])
	}
	arg, err := json.Marshal(keys)
	mustNoErr(t, err, "keys")
	ctx := context.Background()
	c, err := connect(ctx, testConnStr(t))
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	q := b.sql(b.dialect.Rewrite(sqlstate.SelectPaged))
	var got []string
	rows, err := c.Query(ctx, q, "default", string(arg))
	mustNoErr(t, err, "paged")
	for rows.Next() {
		var id, page string
		mustNoErr(t, rows.Scan(&id, &page), "scan")
		got = append(got, page)
	}
	mustNoErr(t, rows.Err(), "paged")
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
	if plan := explain(t, c, q, "default", string(arg)); !strings.Contains(plan, "Index Scan using people_page_key") || !strings.Contains(plan, "Index Cond: ((workspace = 'default'::text) AND (COALESCE(NULLIF(page_key, ''::text), lower(") {
		t.Errorf("SelectPaged is not answered from the index people_page_key:\n%s", plan)
	}
}

// explain is PostgreSQL's plan of q without sequential scans.
func explain(t *testing.T, c *pgx.Conn, q string, args ...any) string {
	t.Helper()
	ctx := context.Background()
	tx, err := c.Begin(ctx)
	mustNoErr(t, err, "begin")
	defer tx.Rollback(ctx)
	_, err = tx.Exec(ctx, `SET LOCAL enable_seqscan = off`)
	mustNoErr(t, err, "no sequential scans")
	rows, err := tx.Query(ctx, `EXPLAIN `+q, args...)
	mustNoErr(t, err, "explain")
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		mustNoErr(t, rows.Scan(&line), "scan")
		lines = append(lines, line)
	}
	mustNoErr(t, rows.Err(), "explain")
	return strings.Join(lines, "\n")
}
