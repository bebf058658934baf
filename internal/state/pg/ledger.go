package pg

import (
	"context"
	"errors"
	"time"

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
	b         *Backend
	account   string
	workspace string
}

var _ backend.Ledger = (*ledger)(nil)

// Ledger is account's ledger (api.AccountID: the key is never stored):
// the backend.LedgerKeeper ability. Close it when done.
func (b *Backend) Ledger(account string) (backend.Ledger, error) {
	lb, err := New(b.opts)
	if err != nil {
		return nil, err
	}
	return &ledger{b: lb, account: account, workspace: b.workspace}, nil
}

// Close closes the ledger's connection.
func (l *ledger) Close() error { return l.b.Close() }

func (l *ledger) do(doing string, f func(ctx context.Context, c *pgx.Conn) error) error {
	return l.b.writing(func(ctx context.Context, c *pgx.Conn) error { return l.b.wrap(doing, f(ctx, c)) })
}

// tx is do in one transaction.
func (l *ledger) tx(doing string, f func(ctx context.Context, tx pgx.Tx) error) error {
	return l.do(doing, func(ctx context.Context, c *pgx.Conn) error {
		return pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error { return f(ctx, tx) })
	})
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
	return l.Hold("", month, add, limit)
}

func (l *ledger) Hold(run, month string, add, limit backend.Spending) (backend.Spending, bool, error) {
	var held backend.Spending
	ok := false
	err := l.tx("reserving in the budget ledger", func(ctx context.Context, tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, l.b.sql(`INSERT INTO {s}.ledger (account, month) VALUES ($1, $2) ON CONFLICT DO NOTHING`), l.account, month); err != nil {
			return err
		}
		if add != (backend.Spending{}) {
			if _, err := tx.Exec(ctx, l.b.sql(`INSERT INTO {s}.ledger_accounts (account) VALUES ($1) ON CONFLICT DO NOTHING`), l.account); err != nil {
				return err
			}
		}
		err := tx.QueryRow(ctx, l.b.sql(`UPDATE {s}.ledger SET credits = credits + $3, requests = requests + $4
			WHERE account = $1 AND month = $2 AND ($5 = 0 OR credits + $3 <= $5) AND ($6 = 0 OR requests + $4 <= $6)
			RETURNING credits, requests`), l.account, month, add.Credits, add.Requests, limit.Credits, limit.Requests).
			Scan(&held.Credits, &held.Requests)
		if errors.Is(err, pgx.ErrNoRows) {
			return tx.QueryRow(ctx, l.b.sql(`SELECT credits, requests FROM {s}.ledger WHERE account = $1 AND month = $2`), l.account, month).
				Scan(&held.Credits, &held.Requests)
		}
		if err != nil || run == "" {
			ok = err == nil
			return err
		}
		_, err = tx.Exec(ctx, l.b.sql(`INSERT INTO {s}.ledger_runs (run, account, workspace, month, credits, requests)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (run) DO UPDATE SET credits = {s}.ledger_runs.credits + $5, requests = {s}.ledger_runs.requests + $6`),
			run, l.account, l.workspace, month, add.Credits, add.Requests)
		ok = err == nil
		return err
	})
	return held, ok && err == nil, err
}

func (l *ledger) Sending(run string, s backend.Spending) error {
	return l.do("noting a call sent in the budget ledger", func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, l.b.sql(`UPDATE {s}.ledger_runs SET credits = greatest(credits - $2, 0), requests = greatest(requests - $3, 0)
			WHERE run = $1`), run, s.Credits, s.Requests)
		return err
	})
}

func (l *ledger) Unhold(run string, sub backend.Spending) error {
	return l.tx("releasing in the budget ledger", func(ctx context.Context, tx pgx.Tx) error {
		var account, month string
		var held backend.Spending
		err := tx.QueryRow(ctx, l.b.sql(`SELECT account, month, credits, requests FROM {s}.ledger_runs WHERE run = $1 FOR UPDATE`), run).
			Scan(&account, &month, &held.Credits, &held.Requests)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		sub = backend.Spending{Credits: min(sub.Credits, held.Credits), Requests: min(sub.Requests, held.Requests)}
		if _, err := tx.Exec(ctx, l.b.sql(`UPDATE {s}.ledger_runs SET credits = credits - $2, requests = requests - $3 WHERE run = $1`),
			run, sub.Credits, sub.Requests); err != nil {
			return err
		}
		return l.take(ctx, tx, account, month, sub)
	})
}

// take takes sub back from what account spent in month.
func (l *ledger) take(ctx context.Context, tx pgx.Tx, account, month string, sub backend.Spending) error {
	_, err := tx.Exec(ctx, l.b.sql(`UPDATE {s}.ledger SET credits = greatest(credits - $3, 0), requests = greatest(requests - $4, 0)
		WHERE account = $1 AND month = $2`), account, month, sub.Credits, sub.Requests)
	return err
}

func (l *ledger) Settle(except string) (backend.Spending, error) {
	var released backend.Spending
	err := l.tx("settling the budget ledger", func(ctx context.Context, tx pgx.Tx) error {
		released = backend.Spending{}
		rows, err := tx.Query(ctx, l.b.sql(`DELETE FROM {s}.ledger_runs WHERE workspace = $1 AND run <> $2
			RETURNING account, month, credits, requests`), l.workspace, except)
		if err != nil {
			return err
		}
		type hold struct {
			account, month string
			s              backend.Spending
		}
		var holds []hold
		for rows.Next() {
			var h hold
			if err := rows.Scan(&h.account, &h.month, &h.s.Credits, &h.s.Requests); err != nil {
				rows.Close()
				return err
			}
			holds = append(holds, h)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, h := range holds {
			if err := l.take(ctx, tx, h.account, h.month, h.s); err != nil {
				return err
			}
			if h.account == l.account {
				released = released.Plus(h.s)
			}
		}
		return nil
	})
	return released, err
}

func (l *ledger) Open(month string) (backend.Spending, error) {
	var s backend.Spending
	err := l.do("reading the budget ledger", func(ctx context.Context, c *pgx.Conn) error {
		return c.QueryRow(ctx, l.b.sql(`SELECT coalesce(sum(credits), 0), coalesce(sum(requests), 0) FROM {s}.ledger_runs
			WHERE workspace = $1 AND account = $2 AND month = $3`), l.workspace, l.account, month).Scan(&s.Credits, &s.Requests)
	})
	return s, err
}

func (l *ledger) Release(month string, sub backend.Spending) error {
	return l.do("releasing in the budget ledger", func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, l.b.sql(`UPDATE {s}.ledger SET credits = greatest(credits - $3, 0), requests = greatest(requests - $4, 0)
			WHERE account = $1 AND month = $2`), l.account, month, sub.Credits, sub.Requests)
		return err
	})
}

func (l *ledger) Since() (time.Time, error) {
	var since time.Time
	err := l.do("reading the budget ledger", func(ctx context.Context, c *pgx.Conn) error {
		err := c.QueryRow(ctx, l.b.sql(`SELECT since FROM {s}.ledger_accounts WHERE account = $1`), l.account).Scan(&since)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	return since.UTC(), err
}
