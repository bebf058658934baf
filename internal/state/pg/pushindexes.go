package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// A push writes millions of rows into the people's tables by COPY. With
// their secondary indexes in place, PostgreSQL inserts each row into
// each of them (seven on people) as it arrives. When the workspace is the
// schema's only one, the push drops those indexes for its transaction and
// makes them again, each over the whole table at once, before its commit,
// as the local database does. Other sessions wait for the commit to read
// the people's tables (the lock the drops take).

// personTables are the tables whose secondary indexes a push may drop.
var personTables = []string{"people", "enrichments", "person_history"}

// pushIndexMemory is maintenance_work_mem while the push makes the
// indexes again: a sort of 3,000,000 keys in memory rather than on disk.
const pushIndexMemory = "128MB"

// takeOffIndexes, in tx, drops the secondary indexes of the people's
// tables (those no constraint uses) when the workspace is the schema's
// only one, and returns the function that makes them again. When they
// cannot be dropped (another workspace in the schema, a role that does
// not own the tables) nothing is done and restore is nil.
func (b *Backend) takeOffIndexes(ctx context.Context, tx pgx.Tx) (restore func() error, err error) {
	if _, err := tx.Exec(ctx, `SAVEPOINT person_indexes`); err != nil {
		return nil, b.wrap("writing people", err)
	}
	defs, err := b.dropIndexes(ctx, tx)
	if err != nil || defs == nil {
		if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT person_indexes`); err != nil {
			return nil, b.wrap("writing people", err)
		}
		return nil, nil
	}
	if _, err := tx.Exec(ctx, `RELEASE SAVEPOINT person_indexes`); err != nil {
		return nil, b.wrap("writing people", err)
	}
	return func() error {
		if _, err := tx.Exec(ctx, `SET LOCAL maintenance_work_mem = '`+pushIndexMemory+`'`); err != nil {
			return b.wrap("making the people's indexes", err)
		}
		for _, def := range defs {
			if _, err := tx.Exec(ctx, def); err != nil {
				return b.wrap("making the people's indexes", err)
			}
		}
		return nil
	}, nil
}

// dropIndexes locks the people's tables and, when the workspace is the
// schema's only one, drops their secondary indexes and returns their
// definitions (pg_get_indexdef, in the order of their names); nil when
// it is not alone.
func (b *Backend) dropIndexes(ctx context.Context, tx pgx.Tx) ([]string, error) {
	if _, err := tx.Exec(ctx, b.sql(`LOCK TABLE {s}.people, {s}.enrichments, {s}.person_history IN ACCESS EXCLUSIVE MODE`)); err != nil {
		return nil, err
	}
	var others bool
	if err := tx.QueryRow(ctx, b.sql(`SELECT EXISTS (SELECT 1 FROM {s}.workspaces WHERE name <> $1)`), b.workspace).Scan(&others); err != nil || others {
		return nil, err
	}
	tables := make([]string, len(personTables))
	for i, t := range personTables {
		tables[i] = b.quoted + "." + pgx.Identifier{t}.Sanitize()
	}
	rows, err := tx.Query(ctx, `SELECT n.nspname, i.relname, pg_get_indexdef(i.oid) FROM pg_index x
		JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_namespace n ON n.oid = i.relnamespace
		WHERE x.indrelid = ANY($1::regclass[]) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
		ORDER BY i.relname`, tables)
	if err != nil {
		return nil, err
	}
	type index struct{ schema, name, def string }
	idx, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (i index, err error) {
		return i, r.Scan(&i.schema, &i.name, &i.def)
	})
	if err != nil {
		return nil, err
	}
	defs := []string{}
	for _, i := range idx {
		if _, err := tx.Exec(ctx, `DROP INDEX `+pgx.Identifier{i.schema, i.name}.Sanitize()); err != nil {
			return nil, err
		}
		defs = append(defs, i.def)
	}
	return defs, nil
}
