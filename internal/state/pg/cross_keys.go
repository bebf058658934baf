package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

var _ backend.ReuseKeys = (*Backend)(nil)

// EnrichedKeysElsewhere returns the lookup keys of the people the other
// workspaces of the schema hold an enrichment of: in their rows, or
// recorded by an apply running there (its events), read in one snapshot
// as EnrichmentsElsewhere reads them.
func (b *Backend) EnrichedKeysElsewhere() ([]string, error) {
	var keys []string
	err := b.elsewhereSnapshot(func(ctx context.Context, tx pgx.Tx) error {
		var err error
		if keys, err = b.enrichedKeyRows(ctx, tx); err != nil {
			return err
		}
		running := map[string]state.Reusable{}
		if err := b.enrichmentEvents(ctx, tx, nil, running); err != nil {
			return err
		}
		for k := range running {
			keys = append(keys, k)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return keys, nil
}

// enrichedKeyRows are the lookup keys of the people holding an
// enrichment in the other workspaces' rows.
func (b *Backend) enrichedKeyRows(ctx context.Context, tx pgx.Tx) ([]string, error) {
	rows, err := tx.Query(ctx, b.sql(`SELECT p.id, p.network_id, p.page_name
		FROM {s}.people p JOIN {s}.enrichments e ON e.workspace = p.workspace AND e.person_id = p.id
		WHERE p.workspace <> $1`), b.workspace)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []string
	for rows.Next() {
		p := &state.Person{}
		if err := rows.Scan(&p.ID, &p.Lead.NetworkID, &p.Lead.PageName); err != nil {
			return nil, err
		}
		keys = append(keys, state.LookupKeys(p)...)
	}
	return keys, rows.Err()
}
