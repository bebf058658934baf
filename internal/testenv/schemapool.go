package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// SchemaPool keeps the PostgreSQL schemas of ended tests, emptied, for
// the tests after them: a schema made and dropped cost the server about
// 125 ms of CPU (its migrations, then DROP SCHEMA). A schema is kept only
// when its tables, columns, indexes, constraints, owners, grants and
// version are those of a schema just migrated (its print); it is emptied
// (its rows deleted, its sequences restarted) and renamed for its next
// test, so no advisory lock of its former name (a session still ending)
// reaches that test. Anything else is dropped.
type SchemaPool struct {
	cs     string
	prefix string
	mu     sync.Mutex
	print  string      // the fingerprint of a schema just migrated
	idle   []string    // emptied schemas
	kept   int         // schemas handed out again
	made   int         // schemas given a new name, not kept
	conns  []*pgx.Conn // idle sessions of Take and Give
}

// NewSchemaPool opens a pool (OpenSchemaPool) for t: its schemas left
// at t's end are dropped.
func NewSchemaPool(t testing.TB, cs, prefix string, migrate func(schema string) error) *SchemaPool {
	t.Helper()
	p, err := OpenSchemaPool(cs, prefix, migrate)
	t.Cleanup(func() {
		if p == nil {
			return
		}
		t.Logf("schemas: %d handed out again, %d made", p.Kept(), p.Made())
		if err := p.Close(); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// OpenSchemaPool has migrate make one schema (the product's migrations,
// on the server at cs), takes its fingerprint, empties it and keeps it
// for the first test. Its schemas are named prefix and random hex. Close
// drops the schemas left; a pool not opened has dropped its schema.
func OpenSchemaPool(cs, prefix string, migrate func(schema string) error) (*SchemaPool, error) {
	p := &SchemaPool{cs: cs, prefix: prefix}
	name := p.newName()
	p.idle = []string{name} // dropped at the end, made or not
	if err := p.first(name, migrate); err != nil {
		return nil, errors.Join(err, p.Close())
	}
	return p, nil
}

// first makes schema name, takes its fingerprint and empties it.
func (p *SchemaPool) first(name string, migrate func(schema string) error) error {
	if err := migrate(name); err != nil {
		return fmt.Errorf("schema pool: migrate %s: %w", name, err)
	}
	ctx := context.Background()
	c, err := pgx.Connect(ctx, p.cs)
	if err != nil {
		return fmt.Errorf("schema pool: connect: %w", err)
	}
	defer c.Close(ctx)
	if p.print, err = schemaPrint(ctx, c, name); err != nil {
		return fmt.Errorf("schema pool: fingerprint %s: %w", name, err)
	}
	if err := emptySchema(ctx, c, name); err != nil {
		return fmt.Errorf("schema pool: empty %s: %w", name, err)
	}
	return nil
}

// Close closes the pool's sessions and drops its idle schemas.
func (p *SchemaPool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close(context.Background())
	}
	p.conns = nil
	idle := p.idle
	p.idle = nil
	return DropSchema(p.cs, idle...)
}

// Schema gives t a schema of its own (see Take), given back at t's end.
func (p *SchemaPool) Schema(t testing.TB) string {
	t.Helper()
	name, err := p.Take()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Give(name); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return name
}

// Take gives a schema of its own: an emptied one renamed, or a new name
// (its tables made on first use). Give it back with Give.
func (p *SchemaPool) Take() (string, error) {
	name := p.newName()
	p.mu.Lock()
	var old string
	if n := len(p.idle); n > 0 {
		old, p.idle = p.idle[n-1], p.idle[:n-1]
		p.kept++
	} else {
		p.made++
	}
	p.mu.Unlock()
	if old == "" {
		return name, nil
	}
	ctx := context.Background()
	c, err := p.conn(ctx)
	if err != nil {
		return "", err
	}
	defer p.idleConn(c)
	if _, err := c.Exec(ctx, `ALTER SCHEMA `+old+` RENAME TO `+name); err != nil {
		return "", fmt.Errorf("schema pool: rename %s: %w", old, err)
	}
	return name, nil
}

// Give empties name and keeps it when it is as just migrated, else drops
// it.
func (p *SchemaPool) Give(name string) error {
	ctx := context.Background()
	c, err := p.conn(ctx)
	if err != nil {
		return err
	}
	defer p.idleConn(c)
	if print, err := schemaPrint(ctx, c, name); err != nil || print != p.print || emptySchema(ctx, c, name) != nil {
		return DropSchema(p.cs, name)
	}
	p.mu.Lock()
	p.idle = append(p.idle, name)
	p.mu.Unlock()
	return nil
}

// conn is an idle session of the pool's, or a new one: a session costs
// the server about 7 ms of CPU, and Take and Give each needed one.
func (p *SchemaPool) conn(ctx context.Context) (*pgx.Conn, error) {
	p.mu.Lock()
	if n := len(p.conns); n > 0 {
		c := p.conns[n-1]
		p.conns = p.conns[:n-1]
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	c, err := pgx.Connect(ctx, p.cs)
	if err != nil {
		return nil, fmt.Errorf("schema pool: connect: %w", err)
	}
	return c, nil
}

// idleConn keeps c for the next conn, or closes it when a statement
// left it broken or inside a transaction.
func (p *SchemaPool) idleConn(c *pgx.Conn) {
	if c.IsClosed() || c.PgConn().TxStatus() != 'I' {
		c.Close(context.Background())
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns = append(p.conns, c)
}

// Kept is how many schemas were handed out again, Made how many were
// given a new name, Idle how many wait emptied.
func (p *SchemaPool) Kept() int { p.mu.Lock(); defer p.mu.Unlock(); return p.kept }

// Made: see Kept.
func (p *SchemaPool) Made() int { p.mu.Lock(); defer p.mu.Unlock(); return p.made }

// Idle: see Kept.
func (p *SchemaPool) Idle() int { p.mu.Lock(); defer p.mu.Unlock(); return len(p.idle) }

func (p *SchemaPool) newName() string {
	var b [6]byte
	rand.Read(b[:])
	return p.prefix + hex.EncodeToString(b[:])
}

// DropSchema drops the schemas named and all they hold, those that
// exist, in one statement: a pool's twenty idle schemas, dropped one
// after the other on a session each, ended the pg conformance suite.
func DropSchema(cs string, names ...string) error {
	if len(names) == 0 {
		return nil
	}
	ctx := context.Background()
	all := strings.Join(names, ", ")
	c, err := pgx.Connect(ctx, cs)
	if err != nil {
		return fmt.Errorf("drop schema %s: %w", all, err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, `DROP SCHEMA IF EXISTS `+all+` CASCADE`); err != nil {
		return fmt.Errorf("drop schema %s: %w", all, err)
	}
	return nil
}

// emptySchema removes every row but the version's and restarts the
// sequences, in one transaction. It deletes rather than truncates: a test
// leaves a few hundred rows, and TRUNCATE made new files for every table
// and index (370-410 ms a schema against 35-47 ms, at load average 43).
// Every foreign key deletes in cascade; one that refused would fail the
// transaction, and Give would drop the schema.
func emptySchema(ctx context.Context, c *pgx.Conn, name string) error {
	var tables, seqs []string
	rows, err := c.Query(ctx, `SELECT relname, relkind FROM pg_class WHERE relnamespace = (SELECT $1::text::regnamespace)
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

// schemaPrint describes what of schema name a test could change: its
// relations (kind, owner, grants, row security), columns (type, NOT
// NULL, default), indexes, constraints, functions, types, the schema's
// owner and grants, and the version row; name itself reads "{s}". The
// namespace is looked up once (a sub-select): cast in each filter, it was
// looked up for every row of the catalogs scanned, 3 times as long.
func schemaPrint(ctx context.Context, c *pgx.Conn, name string) (string, error) {
	var print string
	err := c.QueryRow(ctx, `SELECT coalesce(string_agg(replace(x, $1, '{s}'), E'\n' ORDER BY x), '') FROM (
	SELECT 'rel ' || relname || ' ' || relkind::text || ' ' || pg_get_userbyid(relowner) || ' ' || coalesce(relacl::text, '') || relrowsecurity::text AS x
		FROM pg_class WHERE relnamespace = (SELECT $1::text::regnamespace)
	UNION ALL SELECT 'col ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text || ' ' ||
		coalesce(pg_get_expr(d.adbin, d.adrelid), '') FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
		WHERE c.relnamespace = (SELECT $1::text::regnamespace) AND a.attnum > 0 AND NOT a.attisdropped
	UNION ALL SELECT 'idx ' || pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE c.relnamespace = (SELECT $1::text::regnamespace)
	UNION ALL SELECT 'con ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = (SELECT $1::text::regnamespace)
	UNION ALL SELECT 'fn ' || oid::regprocedure::text FROM pg_proc WHERE pronamespace = (SELECT $1::text::regnamespace)
	UNION ALL SELECT 'typ ' || typname FROM pg_type WHERE typnamespace = (SELECT $1::text::regnamespace) AND typrelid = 0
	UNION ALL SELECT 'nsp ' || pg_get_userbyid(nspowner) || ' ' || coalesce(nspacl::text, '') FROM pg_namespace WHERE nspname = $1
	UNION ALL SELECT 'ver ' || version::text || ' ' || leadsync_version FROM `+name+`.schema_version) q`, name).Scan(&print)
	return print, err
}
