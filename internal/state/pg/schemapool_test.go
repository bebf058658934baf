package pg

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/testenv"
)

// newSchemaPool gives the conformance cases the schemas of ended cases,
// emptied (testenv.SchemaPool), the first one migrated by ensureSchema.
func newSchemaPool(t *testing.T, cs string) *testenv.SchemaPool {
	return testenv.NewSchemaPool(t, cs, "t_", migrateSchema(cs))
}

// A schema is handed to the next case empty, its sequences restarted,
// under a name of its own; one whose tables a case changed is dropped,
// not handed out again.
func TestSchemaPoolHandsOnOnlyEmptiedUnchangedSchemas(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	p := newSchemaPool(t, cs)
	ctx := context.Background()
	var first string
	t.Run("writes", func(t *testing.T) {
		first = p.Schema(t)
		apply(t, newPG(t, cs, first, "", alice), events())
	})
	t.Run("gets it emptied", func(t *testing.T) {
		name := p.Schema(t)
		if p.Kept() != 2 || name == first {
			t.Fatalf("schema %s after %s: %d handed out again, want the written one renamed", name, first, p.Kept())
		}
		c, err := connect(ctx, cs)
		mustNoErr(t, err, "connect")
		defer c.Close(ctx)
		if full := tablesWithRows(t, c, name); len(full) != 0 {
			t.Fatalf("the schema handed out again holds rows in %v", full)
		}
		var next int
		mustNoErr(t, c.QueryRow(ctx, `SELECT nextval('`+name+`.events_n_seq')`).Scan(&next), "sequence")
		if next != 1 {
			t.Fatalf("the schema handed out again: its events' next n is %d", next)
		}
		_, err = c.Exec(ctx, `ALTER TABLE `+name+`.people ADD COLUMN extra2 int`)
		mustNoErr(t, err, "alter")
	})
	if n := p.Idle(); n != 0 {
		t.Fatalf("a schema whose table was changed is kept: %d idle", n)
	}
}

// tablesWithRows names the tables of schema name, its version's apart,
// that hold a row.
func tablesWithRows(t *testing.T, c *pgx.Conn, name string) []string {
	t.Helper()
	ctx := context.Background()
	rows, err := c.Query(ctx, `SELECT relname FROM pg_class WHERE relnamespace = $1::text::regnamespace
		AND relkind = 'r' AND relname <> 'schema_version' ORDER BY relname`, name)
	mustNoErr(t, err, "tables of %s", name)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	mustNoErr(t, err, "tables of %s", name)
	var full []string
	for _, table := range tables {
		var held bool
		mustNoErr(t, c.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+name+`.`+table+`)`).Scan(&held), "rows of %s", table)
		if held {
			full = append(full, table)
		}
	}
	return full
}
