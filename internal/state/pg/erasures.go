package pg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// The erasure record of the schema's workspaces (backend.ErasureKeeper):
// the erasures table, hashed identifiers only.

var _ backend.ErasureKeeper = (*Backend)(nil)

// Erasures returns the schema's erasure record, oldest first.
func (b *Backend) Erasures() ([]*state.Suppression, error) {
	var out []*state.Suppression
	err := b.writing(func(ctx context.Context, c *pgx.Conn) error {
		var err error
		out, err = b.erasures(ctx, c)
		return err
	})
	return out, err
}

// RecordErasures adds entries to the schema's erasure record, each once.
func (b *Backend) RecordErasures(entries []*state.Suppression) error {
	return b.writing(func(ctx context.Context, c *pgx.Conn) error {
		return b.inTx(ctx, c, pgx.TxOptions{}, func(tx pgx.Tx) error {
			for _, e := range entries {
				k := state.EntryKey(e.Keys)
				if k == "" {
					continue
				}
				if _, err := tx.Exec(ctx, b.sql(`INSERT INTO {s}.erasures (entry, keys, at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`),
					k, e.Keys, e.At.UTC()); err != nil {
					return b.wrap("recording the erasure", err)
				}
			}
			return nil
		})
	})
}

// erasures reads the record through q (a schema of the current version).
func (b *Backend) erasures(ctx context.Context, q querier) ([]*state.Suppression, error) {
	rows, err := q.Query(ctx, b.sql(`SELECT keys, at FROM {s}.erasures ORDER BY at, entry`))
	if err != nil {
		return nil, b.wrap("reading the erasure record", err)
	}
	defer rows.Close()
	var out []*state.Suppression
	for rows.Next() {
		var keys []string
		var at time.Time
		if err := rows.Scan(&keys, &at); err != nil {
			return nil, b.wrap("reading the erasure record", err)
		}
		out = append(out, &state.Suppression{Keys: keys, At: at.UTC()})
	}
	return out, b.wrap("reading the erasure record", rows.Err())
}

// honour applies the record (read through q) to s.
func (b *Backend) honour(ctx context.Context, q querier, s *state.State) error {
	entries, err := b.erasures(ctx, q)
	if err != nil {
		return err
	}
	_, err = s.HonourErasures(entries)
	return err
}
