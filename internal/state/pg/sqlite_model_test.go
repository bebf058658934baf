package pg

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	_ "modernc.org/sqlite"

	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// TestSameTablesAsSQLite: the local SQLite database (sqlstate.SQLiteSchema)
// has the tables, views and columns of a PostgreSQL schema made by this build,
// but for the tables the local backend keeps in files, so that both
// engines share one relational model and its queries.
func TestSameTablesAsSQLite(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	schema := testSchema(t, cs)
	b := newPG(t, cs, schema, "", alice)
	ctx := context.Background()
	if _, err := b.Load(); err != nil {
		t.Fatal(err)
	}
	c, err := b.writable(ctx)
	mustNoErr(t, err, "connect")
	rows, err := c.Query(ctx, `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1`, schema)
	mustNoErr(t, err, "columns")
	pgCols := map[string][]string{}
	for rows.Next() {
		var table, col string
		mustNoErr(t, rows.Scan(&table, &col), "scan")
		pgCols[table] = append(pgCols[table], col)
	}
	mustNoErr(t, rows.Err(), "columns")
	for _, files := range []string{"locks", "pace", "ledger", "ledger_runs", "ledger_accounts", "erasures", "claims", "claim_holders"} {
		delete(pgCols, files)
	}
	liteCols := sqliteColumns(t)
	for _, m := range []map[string][]string{pgCols, liteCols} {
		for _, cols := range m {
			sort.Strings(cols)
		}
	}
	// The schema_version tables differ in their time column only.
	delete(pgCols, "schema_version")
	delete(liteCols, "schema_version")
	if d := cmp.Diff(pgCols, liteCols); d != "" {
		t.Errorf("the tables differ (-PostgreSQL +SQLite):\n%s", d)
	}
}

// sqliteColumns are the columns of each table of sqlstate.SQLiteSchema.
func sqliteColumns(t *testing.T) map[string][]string {
	db, err := sql.Open("sqlite", ":memory:")
	mustNoErr(t, err, "open")
	defer db.Close()
	_, err = db.Exec(sqlstate.SQLiteSchema)
	mustNoErr(t, err, "schema")
	rows, err := db.Query(`SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite_%'`)
	mustNoErr(t, err, "columns")
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var table, col string
		mustNoErr(t, rows.Scan(&table, &col), "scan")
		out[table] = append(out[table], col)
	}
	if len(out) == 0 {
		t.Fatal(fmt.Errorf("no tables in %s", strings.TrimSpace(sqlstate.SQLiteSchema)[:40]))
	}
	return out
}
