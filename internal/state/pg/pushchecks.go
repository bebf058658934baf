package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// The keys of the rows a push writes hold by construction: each row
// names the workspace the push has just written (its row, locked by the
// push's transaction until the commit), and each enrichment and change
// of history names the person written before it in the same COPY.
// PostgreSQL still checks each row's foreign key with a query of its own
// (a trigger a row): 43% of the server's CPU in a push of 3,000,000
// people (docs/performance.md). A role that may set
// session_replication_role (a superuser, or one granted SET on it) sets
// it to replica for the rest of the push's transaction (SET LOCAL), which
// skips those triggers. A role that may not keeps the checks, as does a
// schema whose tables have a trigger leadsync did not make (replica
// would skip it too).

// pushedTables are the tables a push writes after its workspace's row.
var pushedTables = []string{"searches", "profile_reads", "failures", "people", "enrichments", "person_history"}

// skipKeyChecks, in tx, turns the triggers of the rows written next off
// until the end of tx when it can; it says whether it did. An error is
// one of the transaction (the rest of the push would fail too).
func (b *Backend) skipKeyChecks(ctx context.Context, tx pgx.Tx) (bool, error) {
	tables := make([]string, len(pushedTables))
	for i, t := range pushedTables {
		tables[i] = b.quoted + "." + pgx.Identifier{t}.Sanitize()
	}
	var own bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE NOT tgisinternal AND tgrelid = ANY ($1::regclass[]))`, tables).Scan(&own); err != nil || own {
		return false, b.wrap("writing the state", err)
	}
	if _, err := tx.Exec(ctx, `SAVEPOINT key_checks`); err != nil {
		return false, b.wrap("writing the state", err)
	}
	if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
		if _, err := tx.Exec(ctx, `ROLLBACK TO SAVEPOINT key_checks`); err != nil {
			return false, b.wrap("writing the state", err)
		}
		return false, nil
	}
	_, err := tx.Exec(ctx, `RELEASE SAVEPOINT key_checks`)
	return err == nil, b.wrap("writing the state", err)
}
