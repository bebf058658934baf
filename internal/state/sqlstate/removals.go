package sqlstate

import (
	"context"
	"database/sql"
	"fmt"
	"iter"
	"slices"

	"github.com/leadsync/leadsync/internal/state"
)

// A write that removes many people (retention, a forget of a search's
// people) deletes them in pages of IDs in their order, one statement a
// table and page, not three statements a person in no order: each
// statement then walks the tables' B-trees forward. On SQLite the page
// cache is raised meanwhile, as a push does (pushCacheKiB): with SQLite's
// 2 MB, the deletes spilled pages to the write-ahead log again and again
// (80% of the CPU of an apply removing 100,000 of 300,000 people).
// PostgreSQL's store deletes the people in the same pages, one statement
// a page in its batch, their rows in the other tables going with them
// (ON DELETE CASCADE), where it sent a statement a person.

// bulkRemoval is the least number of people one write removes that it
// deletes in pages (removePeople); fewer go one by one (Writer.person).
const bulkRemoval = 64

// removalPage is the most people one statement deletes
// (removalPageSize: the tests set it lower).
const removalPage = 5_000

var removalPageSize = removalPage

// removalCacheKiB is SQLite's page cache (in KiB, as PRAGMA cache_size
// takes a negative size) while a write removes people in pages, their
// indexes kept: each delete changes each index at a place of its own.
// With the indexes dropped (removalRebuild), the deletes walk the tables
// forward and change each page once: rebuildCacheKiB is enough, and
// 48 MB less of the process (364 MB against 282-300 MB for an apply
// removing 990,000 of 1,000,000 people).
const (
	removalCacheKiB = 64 << 10
	rebuildCacheKiB = 16 << 10
)

// removalRebuild is the least number of people a write on SQLite removes
// for which it drops the secondary indexes of the people's tables first
// and makes them again after (dropPeopleIndexes): each delete otherwise
// changes each index at a place of its own, and 1,000,000 of them
// spilled the cache to the write-ahead log again and again (68 GB
// written to make a log of 1.4 GB). 100,000 of 300,000 went quicker
// without (the indexes fit the cache). A variable for the tests.
var removalRebuild = 300_000

// removalPageDone, when set (by the tests), is called in the removal's
// transaction after each page of people is deleted.
var removalPageDone func(ctx context.Context, tx *sql.Tx)

// removalStmts delete, for a page of IDs (the list in $2), their history,
// their enrichments and then the people, as Writer.person does for one.
var removalStmts = []struct{ table, col string }{
	{"person_history", "person_id"},
	{"enrichments", "person_id"},
	{"people", "id"},
}

// RemovedIDs are the people ch names whom s no longer holds (to delete),
// sorted, when there are at least bulkRemoval of them or ch lists any
// removed in the removal form (Changes.Removed, all of which go, even
// one made again since: its row is written anew after); nil otherwise:
// both stores delete those in pages (RemovalPages), the writers the
// others one by one. They are ch.Removed itself when that is all of
// them, sorted and each once (as one retention removal lists them):
// not a copy of 1,000,000 IDs. Neither ch nor its lists are changed:
// ch is put back whole when the write fails.
func RemovedIDs(s *state.State, ch *state.Changes) []string {
	var gone []string
	for id := range ch.People {
		if s.People[id] == nil {
			gone = append(gone, id)
		}
	}
	if len(gone) < bulkRemoval && len(ch.Removed) == 0 {
		return nil
	}
	if len(gone) == 0 && state.SortedOnce(ch.Removed) {
		return ch.Removed
	}
	ids := append(slices.Clone(ch.Removed), gone...)
	slices.Sort(ids)
	return slices.Compact(ids)
}

// removePeople deletes the people of ids (sorted) with their history and
// enrichments, a page at a time.
func (w *Writer) removePeople(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	rebuild := func() error { return nil }
	if w.D.Name == SQLite.Name {
		cache := removalCacheKiB
		if len(ids) >= removalRebuild {
			var err error
			if rebuild, err = w.dropPeopleIndexes(ctx); err != nil {
				return err
			}
			cache = rebuildCacheKiB
		}
		if _, err := w.Tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, cache)); err != nil {
			return err
		}
	}
	for page := range RemovalPages(ids) {
		list, err := w.D.List(page)
		if err != nil {
			return err
		}
		for _, st := range removalStmts {
			q := `DELETE FROM {s}.` + st.table + ` WHERE workspace = $1 AND ` + w.D.inList(st.col, "$2")
			if _, err := w.exec(ctx, q, w.WS, list); err != nil {
				return fmt.Errorf("removing %d people from %s: %w", len(page), st.table, err)
			}
		}
		if removalPageDone != nil {
			removalPageDone(ctx, w.Tx)
		}
	}
	if err := rebuild(); err != nil {
		return fmt.Errorf("making the people's indexes again: %w", err)
	}
	if w.D.Name == SQLite.Name {
		// The connection's cache returns to SQLite's default for the
		// next writes, as after a push (dropIndexes).
		_, err := w.Tx.ExecContext(ctx, `PRAGMA cache_size = -2000`)
		return err
	}
	return nil
}

// RemovalPages are the pages of ids (sorted) that one statement
// deletes, in order.
func RemovalPages(ids []string) iter.Seq[[]string] {
	return slices.Chunk(ids, removalPageSize)
}

// dropPeopleIndexes drops, in w's transaction, the secondary indexes of
// the people's tables (DropPeopleIndexes), as a push does.
func (w *Writer) dropPeopleIndexes(ctx context.Context) (rebuild func() error, err error) {
	return DropPeopleIndexes(ctx, w.Tx)
}

// DropPeopleIndexes drops, in tx, the secondary indexes of the people's
// tables (as sqlite_master has them) and returns the function that makes
// them again: an index made once over the rows left or written is
// quicker than one changed row by row, and readers see neither (a
// transaction). A removal of many people and a push both use it.
func DropPeopleIndexes(ctx context.Context, tx *sql.Tx) (rebuild func() error, err error) {
	rows, err := tx.QueryContext(ctx, `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL
		AND tbl_name IN ('people', 'enrichments', 'person_history') ORDER BY name`)
	if err != nil {
		return nil, err
	}
	var names, makes []string
	for rows.Next() {
		var name, stmt string
		if err := rows.Scan(&name, &stmt); err != nil {
			rows.Close()
			return nil, err
		}
		names, makes = append(names, name), append(makes, stmt)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, name := range names {
		if _, err := tx.ExecContext(ctx, `DROP INDEX "`+name+`"`); err != nil {
			return nil, err
		}
	}
	// Statements prepared before name the indexes dropped: SQLite
	// prepares them again itself.
	return func() error {
		for _, m := range makes {
			if _, err := tx.ExecContext(ctx, m); err != nil {
				return err
			}
		}
		return nil
	}, nil
}
