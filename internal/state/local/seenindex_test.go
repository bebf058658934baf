package local

import (
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// TestMigrateSchema4: a database of schema version 4 gets the index of
// the people by last_seen the first time a command opens it; its version
// becomes 5, its state is the same, and SQLite answers retention's
// question (SelectSeenBefore) from two ranges of the index, reading no
// other person.
func TestMigrateSchema4(t *testing.T) {
	db, path, want := savedDemo(t)
	_, err := db.Exec(`DROP INDEX people_last_seen; ` + beforeSchema7 + ` UPDATE schema_version SET version = 4`)
	must(t, err)

	again := NewStore(path)
	defer again.Close()
	base, err := again.OpenBase()
	must(t, err)
	must(t, base.Close())
	var v, n int
	must(t, db.QueryRow(`SELECT version FROM schema_version`).Scan(&v))
	must(t, db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'people_last_seen'`).Scan(&n))
	if v != sqlstate.SchemaVersion || n != 1 {
		t.Fatalf("after opening: schema version %d, %d index people_last_seen; want version %d and the index", v, n, sqlstate.SchemaVersion)
	}
	got, err := again.Load()
	must(t, err)
	if canon := backendtest.Canon; canon(t, got) != canon(t, want) {
		t.Errorf("the migrated database holds another state:\n%s\nwant\n%s", canon(t, got), canon(t, want))
	}
	q := sqlstate.SQLite.Rewrite(sqlstate.SelectSeenBefore)
	plan := explain(t, db, q, state.DefaultWorkspace, "2026-01-01T00:00:00.000000000Z", 10)
	if strings.Count(plan, "USING INDEX people_last_seen (workspace=? AND last_seen") != 2 || strings.Contains(plan, "SCAN people") {
		t.Errorf("SelectSeenBefore is not answered from the index people_last_seen:\n%s", plan)
	}
}
