package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// A push by a role that may not skip the keys' checks (skipKeyChecks)
// has PostgreSQL run a query for each person it writes: the key of the
// person to their workspace, which finds and locks the workspace's row.
// When the workspace is its schema's only one and the role owns the
// people table, that key is taken off for the push's transaction and put
// back before the commit: PostgreSQL then checks it once over the whole
// table, one join instead of 3,000,000 queries (docs/performance.md).
// Every row is still checked, and a row that breaks the key fails the
// push. The lock it takes (the workspaces and people tables, until the
// commit) makes other sessions of the schema wait to read them; there is
// no other workspace in it, and this one's state is being replaced.

// takeOffWorkspaceKey, in tx, drops the people's key to their workspace
// and returns the function that puts it back; nil when it cannot
// (another workspace in the schema, a role that does not own the table,
// a key leadsync did not make), and nothing is done then.
func (b *Backend) takeOffWorkspaceKey(ctx context.Context, tx pgx.Tx) (restore func() error, err error) {
	if _, err := tx.Exec(ctx, `SAVEPOINT workspace_key`); err != nil {
		return nil, b.wrap("writing the state", err)
	}
	key, err := b.dropWorkspaceKey(ctx, tx)
	if err != nil || key == nil {
		if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT workspace_key`); err != nil {
			return nil, b.wrap("writing the state", err)
		}
		return nil, nil
	}
	if _, err := tx.Exec(ctx, `RELEASE SAVEPOINT workspace_key`); err != nil {
		return nil, b.wrap("writing the state", err)
	}
	return func() error {
		q := b.sql(`ALTER TABLE {s}.people ADD CONSTRAINT ` + pgx.Identifier{key.name}.Sanitize() + ` ` + key.def)
		if _, err := tx.Exec(ctx, q); err != nil {
			return b.wrap("checking the people's workspace", err)
		}
		return nil
	}, nil
}

// dropWorkspaceKey locks the workspaces and people tables and drops the
// people's one key to workspaces when the workspace is the schema's only
// one; nil when it is not, or the key is not the one leadsync makes.
func (b *Backend) dropWorkspaceKey(ctx context.Context, tx pgx.Tx) (*personKey, error) {
	if _, err := tx.Exec(ctx, b.sql(`LOCK TABLE {s}.workspaces, {s}.people IN ACCESS EXCLUSIVE MODE`)); err != nil {
		return nil, err
	}
	var others bool
	if err := tx.QueryRow(ctx, b.sql(`SELECT EXISTS (SELECT 1 FROM {s}.workspaces WHERE name <> $1)`), b.workspace).Scan(&others); err != nil || others {
		return nil, err
	}
	rows, err := tx.Query(ctx, `SELECT c.conname, pg_get_constraintdef(c.oid) FROM pg_constraint c
		WHERE c.contype = 'f' AND c.conrelid = $1::regclass AND c.confrelid = $2::regclass`, b.quoted+".people", b.quoted+".workspaces")
	if err != nil {
		return nil, err
	}
	keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (k personKey, err error) {
		return k, r.Scan(&k.name, &k.def)
	})
	if err != nil || len(keys) != 1 {
		return nil, err
	}
	k := keys[0]
	if _, err := tx.Exec(ctx, b.sql(`ALTER TABLE {s}.people DROP CONSTRAINT `+pgx.Identifier{k.name}.Sanitize())); err != nil {
		return nil, err
	}
	return &k, nil
}
