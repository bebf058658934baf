package pg

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/state/backend"
)

// ledger is one API account's spending in the ledger table, shared by
// every workspace, teammate and run on the schema. A reservation is one
// UPDATE that checks the limit in its WHERE clause: PostgreSQL's row lock
// makes two runs at the same time see each other's reservations, so they
// never pass a limit together. It has a connection of its own (the
// backend's may be busy recording a call).
type ledger struct {
	b       *Backend
	account string
}

var _ backend.Ledger = (*ledger)(nil)

// Ledger is account's ledger (api.AccountID: the key is never stored):
// the backend.LedgerKeeper ability. Close it when done.
func (b *Backend) Ledger(account string) (backend.Ledger, error) {
	lb, err := New(b.opts)
	if err != nil {
		return nil, err
	}
	return &ledger{b: lb, account: account}, nil
}

// Close closes the ledger's connection.
func (l *ledger) Close() error { return l.b.Close() }

func (l *ledger) do(doing string, f func(ctx context.Context, c *pgx.Conn) error) error {
	l.b.mu.Lock()
	defer l.b.mu.Unlock()
	ctx, cancel := opCtx()
	defer cancel()
	c, err := l.b.writable(ctx)
	if err != nil {
		return err
	}
	return l.b.wrap(doing, f(ctx, c))
}

func (l *ledger) Spent(month string) (backend.Spending, error) {
	var s backend.Spending
	err := l.do("reading the budget ledger", func(ctx context.Context, c *pgx.Conn) error {
		err := c.QueryRow(ctx, l.b.sql(`SELECT credits, requests FROM {s}.ledger WHERE account = $1 AND month = $2`), l.account, month).
			Scan(&s.Credits, &s.Requests)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	return s, err
}

func (l *ledger) Reserve(month string, add, limit backend.Spending) (backend.Spending, bool, error) {
	var held backend.Spending
	ok := false
	err := l.do("reserving in the budget ledger", func(ctx context.Context, c *pgx.Conn) error {
		if _, err := c.Exec(ctx, l.b.sql(`INSERT INTO {s}.ledger (account, month) VALUES ($1, $2) ON CONFLICT DO NOTHING`), l.account, month); err != nil {
			return err
		}
		err := c.QueryRow(ctx, l.b.sql(`UPDATE {s}.ledger SET credits = credits + $3, requests = requests + $4
			WHERE account = $1 AND month = $2 AND ($5 = 0 OR credits + $3 <= $5) AND ($6 = 0 OR requests + $4 <= $6)
			RETURNING credits, requests`), l.account, month, add.Credits, add.Requests, limit.Credits, limit.Requests).
			Scan(&held.Credits, &held.Requests)
		if errors.Is(err, pgx.ErrNoRows) {
			return c.QueryRow(ctx, l.b.sql(`SELECT credits, requests FROM {s}.ledger WHERE account = $1 AND month = $2`), l.account, month).
				Scan(&held.Credits, &held.Requests)
		}
		ok = err == nil
		return err
	})
	return held, ok, err
}

func (l *ledger) Release(month string, sub backend.Spending) error {
	return l.do("releasing in the budget ledger", func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, l.b.sql(`UPDATE {s}.ledger SET credits = greatest(credits - $3, 0), requests = greatest(requests - $4, 0)
			WHERE account = $1 AND month = $2`), l.account, month, sub.Credits, sub.Requests)
		return err
	})
}
