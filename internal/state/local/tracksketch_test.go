package local

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// savedDemo saves the state of demoEvents in a new database at path,
// gives the state the store loads of it, and opens the database for SQL
// of the test's own (closed when the test ends).
func savedDemo(t *testing.T) (db *sql.DB, path string, saved *state.State) {
	t.Helper()
	path = filepath.Join(t.TempDir(), ".leadsync", "state.db")
	store := NewStore(path)
	must(t, store.Save(backendtest.Fold(t, demoEvents())))
	saved, err := store.Load()
	must(t, err)
	must(t, store.Close())
	db, err = sql.Open("sqlite", path+sqliteDSN)
	must(t, err)
	t.Cleanup(func() { db.Close() })
	return db, path, saved
}

// TestTrackSketchesInTheOrderOfIDs: SQLite answers SelectTrackSketched
// from the enrichments' primary key, in the order of the people's IDs
// without a sort, so that each page of people is read once. Read in the
// order of enrichments_by, it read them at random (a pread each). That
// is for the block of a small share of the enrichments alone
// (SelectTrackSketchedFew): its range of enrichments_by, no other
// block's enrichment read.
func TestTrackSketchesInTheOrderOfIDs(t *testing.T) {
	db, _, _ := savedDemo(t)
	q := sqlstate.SQLite.Rewrite(sqlstate.SelectTrackSketched)
	plan := explain(t, db, q, state.DefaultWorkspace, "enrich.contacts")
	if !strings.Contains(plan, "USING INDEX sqlite_autoindex_enrichments_1 (workspace=?)") ||
		!strings.Contains(plan, "USING INDEX sqlite_autoindex_people_1 (workspace=? AND id=?)") ||
		strings.Contains(plan, "enrichments_by") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("SelectTrackSketched is not read in the order of the enrichments' primary key:\n%s", plan)
	}
	q = sqlstate.SQLite.Rewrite(sqlstate.SelectTrackSketchedFew)
	plan = explain(t, db, q, state.DefaultWorkspace, "enrich.contacts")
	if !strings.Contains(plan, "USING INDEX enrichments_by (workspace=? AND by_n=?)") ||
		!strings.Contains(plan, "USING INDEX sqlite_autoindex_people_1 (workspace=? AND id=?)") ||
		strings.Contains(plan, "sqlite_autoindex_enrichments_1") {
		t.Errorf("SelectTrackSketchedFew does not read the block's range of enrichments_by alone:\n%s", plan)
	}
}
