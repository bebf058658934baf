package sqlstate

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/leadsync/leadsync/internal/state"
)

// TestRemovingManyPeopleDeletesInPages: a write that removes at least
// bulkRemoval people deletes them a page of IDs at a time, with their
// enrichments and history, and no statement a person (Writer.person's);
// fewer go one by one. The rows of the people kept stay, whatever page
// size.
func TestRemovingManyPeopleDeletesInPages(t *testing.T) {
	for _, c := range []struct{ remove, page, rebuild int }{
		{bulkRemoval + 6, removalPage, removalRebuild}, {bulkRemoval + 6, 7, removalRebuild},
		{bulkRemoval + 6, 7, bulkRemoval}, {3, removalPage, 1},
	} {
		t.Run(fmt.Sprintf("remove %d in pages of %d, indexes made again from %d", c.remove, c.page, c.rebuild), func(t *testing.T) {
			was, wasRebuild := removalPageSize, removalRebuild
			removalPageSize, removalRebuild = c.page, c.rebuild
			defer func() { removalPageSize, removalRebuild = was, wasRebuild }()
			db := removalDB(t)
			indexes := removalIndexes(t, db)
			s := &state.State{Lineage: "l", People: map[string]*state.Person{}}
			at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
			ch := &state.Changes{People: map[string]struct{}{}, History: map[string]int{}}
			const n = bulkRemoval + 40
			for i := range n {
				id := fmt.Sprintf("p%03d", (i*37)%n) // not in order
				p := &state.Person{ID: id, LastSeen: at, History: []state.Drift{{Field: state.DriftTitle, After: "CTO", At: at, By: "search.s", Call: "search"}}}
				if i%2 == 0 {
					p.Enrichment = &state.Enrichment{By: "enrich.e", EnrichedAt: at}
				}
				s.People[id], ch.People[id], ch.History[id] = p, struct{}{}, -1
			}
			removalWrite(t, db, s, ch)
			ch = &state.Changes{People: map[string]struct{}{}}
			kept := map[string]bool{}
			for id := range s.People {
				if len(ch.People) < c.remove {
					delete(s.People, id)
					ch.People[id] = struct{}{}
				} else {
					kept[id] = true
				}
			}
			w := removalWrite(t, db, s, ch)
			_, one := w.stmts[DeletePerson]
			if many := c.remove >= bulkRemoval; many == one {
				t.Errorf("%d removed: a statement a person prepared %v, want %v", c.remove, one, !many)
			}
			for _, table := range []string{"people", "enrichments", "person_history"} {
				col := map[string]string{"people": "id"}[table]
				if col == "" {
					col = "person_id"
				}
				checkRemovalRows(t, db, table, col, kept)
			}
			if got := removalIndexes(t, db); got != indexes {
				t.Errorf("the indexes after the removal are\n%s\nwant\n%s", got, indexes)
			}
			var check string
			if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
				t.Errorf("integrity_check: %q, %v", check, err)
			}
		})
	}
}

// removalDB is an SQLite database in memory with the tables of a local
// state.
func removalDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+t.Name()+"?mode=memory&cache=shared")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(SQLiteSchema); err != nil {
		t.Fatal(err)
	}
	return db
}

// removalWrite writes ch of s in one transaction and returns the writer.
func removalWrite(t *testing.T, db *sql.DB, s *state.State, ch *state.Changes) *Writer {
	t.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &Writer{D: SQLite, Tx: tx, WS: "default", Version: "test"}
	if _, err := w.Flush(ctx, s, ch, FlushOpts{Created: SQLite.TimeValue(time.Now())}); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return w
}

// checkRemovalRows: table holds rows of the people of kept alone (the
// enrichments of every second one), each of them.
func checkRemovalRows(t *testing.T, db *sql.DB, table, col string, kept map[string]bool) {
	t.Helper()
	rows, err := db.Query(`SELECT DISTINCT ` + col + ` FROM ` + table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := 0
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		if !kept[id] {
			t.Errorf("%s still holds %s, who was removed", table, id)
		}
		seen++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if table != "enrichments" && seen != len(kept) {
		t.Errorf("%s holds %d of the %d people kept", table, seen, len(kept))
	}
}

// removalIndexes are the indexes of db, as sqlite_master makes them.
func removalIndexes(t *testing.T, db *sql.DB) string {
	t.Helper()
	var out string
	if err := db.QueryRow(`SELECT group_concat(sql, ';' || char(10)) FROM (SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name)`).Scan(&out); err != nil {
		t.Fatal(err)
	}
	if out == "" {
		t.Fatal("the schema makes no index: the test compares none")
	}
	return out
}

// TestDropPeopleIndexes: the secondary indexes of the people's tables
// are gone within the transaction, and made again as they were.
func TestDropPeopleIndexes(t *testing.T) {
	db := removalDB(t)
	before := removalIndexes(t, db)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	w := &Writer{D: SQLite, Tx: tx, WS: "default"}
	rebuild, err := w.dropPeopleIndexes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ('people', 'enrichments', 'person_history')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d indexes of the people's tables left after dropping them (%v)", n, err)
	}
	if err := rebuild(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := removalIndexes(t, db); got != before {
		t.Errorf("the indexes made again are\n%s\nwant\n%s", got, before)
	}
}
