package pg

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// schemaPool keeps the schemas of ended conformance cases, emptied, for
// the cases after them: a schema made and dropped cost the server about
// 125 ms of CPU (its migrations, then DROP SCHEMA), and the suite made
// 112. A schema is kept only when its tables, columns, indexes,
// constraints, owners, grants and version are those of a schema just
// migrated (print); it is emptied (its rows deleted, its sequences
// restarted) and renamed for its next case, so no advisory lock of its
// former name (a session still ending) reaches that case. Anything else
// is dropped, as testSchema does.
type schemaPool struct {
	cs    string
	mu    sync.Mutex
	print string   // the fingerprint of a schema just migrated
	idle  []string // emptied schemas
	kept  int      // schemas handed out again
	made  int      // schemas given a new name, not kept
}

// newSchemaPool migrates one schema, takes its fingerprint, and keeps it
// for the first case; the schemas left at t's end are dropped.
func newSchemaPool(t *testing.T, cs string) *schemaPool {
	p := &schemaPool{cs: cs}
	t.Cleanup(func() {
		t.Logf("schemas: %d handed out again, %d made", p.kept, p.made)
		for _, s := range p.idle {
			dropSchema(t, cs, s)
		}
	})
	name := "t_" + newID()[:12]
	p.idle = []string{name} // dropped at the end, made or not
	b := newPG(t, cs, name, "", alice)
	ctx := context.Background()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	mustNoErr(t, b.ensureSchema(ctx, c), "migrate %s", name)
	b.Close()
	p.print, err = schemaPrint(ctx, c, name)
	mustNoErr(t, err, "fingerprint %s", name)
	return p
}

// schema gives t a schema of its own: an emptied one renamed, or a new
// name (its tables made on first use). At t's end it is emptied and
// kept, or dropped.
func (p *schemaPool) schema(t *testing.T) string {
	name := "t_" + newID()[:12]
	ctx := context.Background()
	p.mu.Lock()
	var old string
	if n := len(p.idle); n > 0 {
		old, p.idle = p.idle[n-1], p.idle[:n-1]
		p.kept++
	} else {
		p.made++
	}
	p.mu.Unlock()
	if old != "" {
		c, err := connect(ctx, p.cs)
		mustNoErr(t, err, "connect")
		_, err = c.Exec(ctx, `ALTER SCHEMA `+old+` RENAME TO `+name)
		c.Close(ctx)
		mustNoErr(t, err, "rename %s", old)
	}
	t.Cleanup(func() { p.recycle(t, name) })
	return name
}

// recycle empties name and keeps it when it is as just migrated, else
// drops it.
func (p *schemaPool) recycle(t *testing.T, name string) {
	ctx := context.Background()
	c, err := connect(ctx, p.cs)
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	defer c.Close(ctx)
	if print, err := schemaPrint(ctx, c, name); err != nil || print != p.print || emptySchema(ctx, c, name) != nil {
		dropSchema(t, p.cs, name)
		return
	}
	p.mu.Lock()
	p.idle = append(p.idle, name)
	p.mu.Unlock()
}

// emptySchema removes every row but the version's and restarts the
// sequences, in one transaction. It deletes rather than truncates: a case
// leaves a few hundred rows, and TRUNCATE made new files for every table
// and index (370-410 ms a schema against 35-47 ms, at load average 43).
// Every foreign key deletes in cascade; one that refused would fail the
// transaction, and recycle would drop the schema.
func emptySchema(ctx context.Context, c *pgx.Conn, name string) error {
	var tables, seqs []string
	rows, err := c.Query(ctx, `SELECT relname, relkind FROM pg_class WHERE relnamespace = $1::text::regnamespace
		AND relkind IN ('r', 'S', 'p') AND relname <> 'schema_version' ORDER BY relname`, name)
	if err != nil {
		return err
	}
	for rows.Next() {
		var rel, kind string
		if err := rows.Scan(&rel, &kind); err != nil {
			return err
		}
		q := name + "." + rel
		if kind == "S" {
			seqs = append(seqs, `ALTER SEQUENCE `+q+` RESTART`)
		} else {
			tables = append(tables, `DELETE FROM `+q)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	stmts := append(append([]string{`BEGIN`}, tables...), seqs...)
	_, err = c.Exec(ctx, strings.Join(append(stmts, `COMMIT`), "; "))
	return err
}

// schemaPrint describes what of schema name a case could change: its
// relations (kind, owner, grants, row security), columns (type, NOT
// NULL, default), indexes, constraints, functions, types, the schema's
// owner and grants, and the version row; name itself reads "{s}".
func schemaPrint(ctx context.Context, c *pgx.Conn, name string) (string, error) {
	var print string
	err := c.QueryRow(ctx, `SELECT coalesce(string_agg(replace(x, $1, '{s}'), E'\n' ORDER BY x), '') FROM (
	SELECT 'rel ' || relname || ' ' || relkind::text || ' ' || pg_get_userbyid(relowner) || ' ' || coalesce(relacl::text, '') || relrowsecurity::text AS x
		FROM pg_class WHERE relnamespace = $1::text::regnamespace
	UNION ALL SELECT 'col ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text || ' ' ||
		coalesce(pg_get_expr(d.adbin, d.adrelid), '') FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE c.relnamespace = $1::text::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
	UNION ALL SELECT 'idx ' || pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE c.relnamespace = $1::text::regnamespace
	UNION ALL SELECT 'con ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = $1::text::regnamespace
	UNION ALL SELECT 'fn ' || oid::regprocedure::text FROM pg_proc WHERE pronamespace = $1::text::regnamespace
	UNION ALL SELECT 'typ ' || typname FROM pg_type WHERE typnamespace = $1::text::regnamespace AND typrelid = 0
	UNION ALL SELECT 'nsp ' || pg_get_userbyid(nspowner) || ' ' || coalesce(nspacl::text, '') FROM pg_namespace WHERE nspname = $1
	UNION ALL SELECT 'ver ' || version::text || ' ' || leadsync_version FROM `+name+`.schema_version) q`, name).Scan(&print)
	return print, err
}

// dropSchema drops schema name, failing t when it cannot.
func dropSchema(t *testing.T, cs, name string) {
	ctx := context.Background()
	c, err := connect(ctx, cs)
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, `DROP SCHEMA IF EXISTS `+name+` CASCADE`); err != nil {
		t.Errorf("cleanup: %v", err)
	}
}

// A schema is handed to the next case empty, its sequences restarted,
// under a name of its own; one whose tables a case changed is dropped,
// not handed out again.
func TestSchemaPoolHandsOnOnlyEmptiedUnchangedSchemas(t *testing.T) {
	cs := testConnStr(t)
	p := newSchemaPool(t, cs)
	ctx := context.Background()
	var first string
	t.Run("writes", func(t *testing.T) {
		first = p.schema(t)
		apply(t, newPG(t, cs, first, "", alice), events())
	})
	t.Run("gets it emptied", func(t *testing.T) {
		name := p.schema(t)
		if p.kept != 2 || name == first {
			t.Fatalf("schema %s after %s: %d handed out again, want the written one renamed", name, first, p.kept)
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
	if len(p.idle) != 0 {
		t.Fatalf("a schema whose table was changed is kept: %v", p.idle)
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
