package pg

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// OpenBase opens the workspace's state for a command that asks for what
// it needs (state.Base): its records read now, its people when asked,
// through sqlstate's queries (the same as the local database's) in one
// read-only, repeatable-read transaction on a connection of its own,
// which the Base's Close ends; like Load, it writes nothing to a schema of
// this build's version. A workspace with calls of an interrupted
// apply not folded in yet, or with an erasure made elsewhere that it does
// not honour yet, is read whole (Load) instead, as is one never written.
func (b *Backend) OpenBase() (*state.Base, error) {
	found, err := b.reading(func(context.Context, *pgx.Conn) error { return nil })
	if err != nil || !found {
		return b.wholeBase(err)
	}
	cfg, err := parseConfig(b.opts.ConnStr)
	if err != nil {
		return nil, err
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	base, err := b.readBase(ctx, db)
	if err != nil || base == nil {
		db.Close()
		if err != nil {
			return nil, b.wrap("reading the state", Redact(err, b.opts.ConnStr))
		}
		return b.wholeBase(nil)
	}
	var entries []*state.Suppression
	_, err = b.reading(func(ctx context.Context, c *pgx.Conn) error {
		var err error
		entries, err = b.erasures(ctx, c)
		return err
	})
	if err != nil || base.Records.Unhonoured(entries) {
		base.Close()
		return b.wholeBase(err)
	}
	return base, nil
}

// ReadWorkspaceRow reads the workspace's row alone, its service and
// configuration (backend.WorkspaceRowReader): nil when the schema or the
// row does not exist yet.
func (b *Backend) ReadWorkspaceRow() (*state.State, error) {
	var s *state.State
	_, err := b.reading(func(ctx context.Context, c *pgx.Conn) error {
		var err error
		s, _, err = sqlstate.ScanWorkspaceRow(c.QueryRow(ctx, b.dialect.Rewrite(sqlstate.SelectHeader), b.workspace).Scan)
		return b.wrap("reading the state", err)
	})
	return s, err
}

// wholeBase is the Base of the state Load reads, or err.
func (b *Backend) wholeBase(err error) (*state.Base, error) {
	if err != nil {
		return nil, err
	}
	s, err := b.Load()
	if err != nil {
		return nil, err
	}
	return state.NewBase(s), nil
}

// readBase reads the records in a transaction that the Base's people are
// read in too; nil without error when the workspace holds calls not
// folded in yet or has no row.
func (b *Backend) readBase(ctx context.Context, db *sql.DB) (*state.Base, error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return nil, err
	}
	r := &sqlstate.Reader{D: b.dialect, Q: tx, WS: b.workspace}
	s, kept, pending, found, err := r.ReadRecords(ctx)
	if err == nil && found && !pending {
		var created time.Time
		err = tx.QueryRowContext(ctx, b.sql(`SELECT created_at FROM {s}.workspaces WHERE name = $1`), b.workspace).Scan(&created)
		if errors.Is(err, sql.ErrNoRows) {
			found = false
		}
		s.Epoch = epoch(created)
	}
	if err != nil || !found || pending {
		tx.Rollback()
		return nil, err
	}
	done := func() error {
		tx.Rollback()
		return db.Close()
	}
	wrap := func(err error) error { return b.wrap("reading the state", Redact(err, b.opts.ConnStr)) }
	r.IDStream, r.PageStream = b.streamIDs, b.streamPages
	return state.NewStoredBase(s, kept, r.People(ctx, db, done, wrap)), nil
}

// ReadsPeopleOnRequest is true: a workspace's Base reads its people on
// request (backend.PartReader).
func (b *Backend) ReadsPeopleOnRequest() bool { return true }
