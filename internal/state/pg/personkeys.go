package pg

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"
)

// A push that replaces a workspace's people (state push --force) deletes
// them first. Through the foreign keys of their enrichments and
// histories, PostgreSQL runs two queries for each person deleted (the
// keys' cascades, a trigger a row): 50-75 s of a push over 3,000,000
// people, as much with the children deleted first (docs/performance.md).
// When the workspace is the schema's only one, those keys are taken off
// for the push's transaction instead: the children and the people are
// deleted a table at a time, and the keys are put back, checked once
// over the whole tables, before the commit. Other sessions see the old
// state until the commit (the deletes are MVCC), but wait for the
// commit to read the people's tables (the keys' locks).

// personKey is a foreign key to the people table: its name, its table
// and its definition (pg_get_constraintdef).
type personKey struct{ name, table, def string }

// personChildren are the tables whose keys to people may be taken off:
// each has the workspace column its rows are deleted by.
var personChildren = []string{"enrichments", "person_history"}

// takeOffPersonKeys, in tx, deletes the workspace's enrichments and
// histories with the keys to people taken off, and returns the function
// that puts the keys back. When the keys cannot be taken off (another
// workspace in the schema, a role that does not own the tables, a key
// leadsync did not make) nothing is done and restore is nil: the people
// are deleted with the keys' cascades.
func (b *Backend) takeOffPersonKeys(ctx context.Context, tx pgx.Tx) (restore func() error, err error) {
	if _, err := tx.Exec(ctx, `SAVEPOINT person_keys`); err != nil {
		return nil, b.wrap("emptying the workspace", err)
	}
	keys, err := b.dropPersonKeys(ctx, tx)
	if err != nil || keys == nil {
		if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT person_keys`); err != nil {
			return nil, b.wrap("emptying the workspace", err)
		}
		return nil, nil
	}
	if _, err := tx.Exec(ctx, `RELEASE SAVEPOINT person_keys`); err != nil {
		return nil, b.wrap("emptying the workspace", err)
	}
	for _, t := range personChildren {
		if _, err := tx.Exec(ctx, b.sql(`DELETE FROM {s}.`+t+` WHERE workspace = $1`), b.workspace); err != nil {
			return nil, b.wrap("emptying the workspace", err)
		}
	}
	return func() error {
		for _, k := range keys {
			q := b.sql(`ALTER TABLE {s}.` + pgx.Identifier{k.table}.Sanitize() + ` ADD CONSTRAINT ` + pgx.Identifier{k.name}.Sanitize() + ` ` + k.def)
			if _, err := tx.Exec(ctx, q); err != nil {
				return b.wrap("checking the people's enrichments and histories", err)
			}
		}
		return nil
	}, nil
}

// dropPersonKeys locks the people's tables, and drops the keys to people
// when the workspace is the schema's only one; nil keys when it is not.
func (b *Backend) dropPersonKeys(ctx context.Context, tx pgx.Tx) ([]personKey, error) {
	if _, err := tx.Exec(ctx, b.sql(`LOCK TABLE {s}.people, {s}.enrichments, {s}.person_history IN ACCESS EXCLUSIVE MODE`)); err != nil {
		return nil, err
	}
	var others bool
	if err := tx.QueryRow(ctx, b.sql(`SELECT EXISTS (SELECT 1 FROM {s}.workspaces WHERE name <> $1)`), b.workspace).Scan(&others); err != nil || others {
		return nil, err
	}
	rows, err := tx.Query(ctx, `SELECT c.conname, t.relname, pg_get_constraintdef(c.oid) FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
		WHERE c.contype = 'f' AND c.confrelid = $1::regclass ORDER BY c.conname`, b.quoted+".people")
	if err != nil {
		return nil, err
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (k personKey, err error) {
		return k, r.Scan(&k.name, &k.table, &k.def)
	})
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if !slices.Contains(personChildren, k.table) {
			return nil, fmt.Errorf("a key to people leadsync did not make: %s on %s", k.name, k.table)
		}
		if _, err := tx.Exec(ctx, b.sql(`ALTER TABLE {s}.`+pgx.Identifier{k.table}.Sanitize()+` DROP CONSTRAINT `+pgx.Identifier{k.name}.Sanitize())); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
