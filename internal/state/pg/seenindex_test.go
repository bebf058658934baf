package pg

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// TestMigrateSchema13: a schema of version 13 gets the index of the
// people by last_seen when a command opens it (version 14), its state is
// the same, and PostgreSQL answers retention's question
// (SelectSeenBefore) from the index, with sequential scans turned off.
func TestMigrateSchema13(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	old, schema, c := schemaAt(t, cs, 13)
	ctx := context.Background()
	var err error
	_, err = c.Exec(ctx, old.sql(`INSERT INTO {s}.workspaces (name, lineage, serial, format_version, created_at) VALUES ('default', 'lin-1', 7, 1, now())`))
	mustNoErr(t, err, "insert")
	_, err = c.Exec(ctx, old.sql(`INSERT INTO {s}.people (workspace, id, full_name, found_by, last_seen)
		SELECT 'default', 'p' || i, 'P ' || i, '{search.a}', timestamptz '2026-01-01' + i * interval '1 day' FROM generate_series(1, 300) AS i`))
	mustNoErr(t, err, "insert")
	old.mu.Unlock()
	s, err := newPG(t, cs, schema, "", bob).Load()
	mustNoErr(t, err, "load of a version 13 schema")
	if len(s.People) != 300 || !s.People["p1"].LastSeen.Equal(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("migrated state: %d people, p1 %+v", len(s.People), s.People["p1"])
	}
	var v int
	mustNoErr(t, c.QueryRow(ctx, old.sql(`SELECT version FROM {s}.schema_version`)).Scan(&v), "version")
	if v != SchemaVersion {
		t.Fatalf("schema version %d after migration, want %d", v, SchemaVersion)
	}
	q := old.sql(old.dialect.Rewrite(sqlstate.SelectSeenBefore))
	if plan := explain(t, c, q, "default", time.Date(2026, 1, 10, 0, 0, 0, 0, time.UTC), 10); !strings.Contains(plan, "people_last_seen") {
		t.Errorf("SelectSeenBefore is not answered from the index people_last_seen:\n%s", plan)
	}
}
