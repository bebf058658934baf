package sqlstate

import (
	"context"
	"fmt"
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

// bulkRemoval is the least number of people one write removes that it
// deletes in pages (removePeople); fewer go one by one (Writer.person).
const bulkRemoval = 64

// removalPage is the most people one statement deletes
// (removalPageSize: the tests set it lower).
const removalPage = 5_000

var removalPageSize = removalPage

// removalCacheKiB is SQLite's page cache (in KiB, as PRAGMA cache_size
// takes a negative size) while a write removes people in pages.
const removalCacheKiB = 64 << 10

// removalStmts delete, for a page of IDs (the list in $2), their history,
// their enrichments and then the people, as Writer.person does for one.
var removalStmts = []struct{ table, col string }{
	{"person_history", "person_id"},
	{"enrichments", "person_id"},
	{"people", "id"},
}

// removedIDs are the people ch names whom s no longer holds (to delete),
// sorted, when there are at least bulkRemoval of them; nil otherwise.
func removedIDs(s *state.State, ch *state.Changes) []string {
	var ids []string
	for id := range ch.People {
		if s.People[id] == nil {
			ids = append(ids, id)
		}
	}
	if len(ids) < bulkRemoval {
		return nil
	}
	slices.Sort(ids)
	return ids
}

// removePeople deletes the people of ids (sorted) with their history and
// enrichments, a page at a time.
func (w *Writer) removePeople(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if w.D.Name == SQLite.Name {
		if _, err := w.Tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, removalCacheKiB)); err != nil {
			return err
		}
	}
	for start := 0; start < len(ids); start += removalPageSize {
		page := ids[start:min(start+removalPageSize, len(ids))]
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
	}
	if w.D.Name == SQLite.Name {
		// The connection's cache returns to SQLite's default for the
		// next writes, as after a push (dropIndexes).
		_, err := w.Tx.ExecContext(ctx, `PRAGMA cache_size = -2000`)
		return err
	}
	return nil
}
