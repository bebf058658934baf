package local

import (
	"context"
	"database/sql"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// openBase opens a Base of the database's state (state.Base): its records
// read now, its people when asked, all in one read transaction (a
// snapshot) on a connection of its own, which the Base's Close ends. A
// state with calls of an interrupted apply not folded in yet is read
// whole instead (folding them needs its people).
func (d *dbStore) openBase() (*state.Base, error) {
	d.mu.Lock()
	db, err := d.handle(false) // makes sure of the schema
	d.closeIdle()
	d.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if db == nil {
		s := state.New()
		s.Track()
		return state.NewBase(s), nil
	}
	var base *state.Base
	err = retryBusy(func() error {
		var err error
		base, err = d.readBase()
		return err
	})
	if err != nil || base != nil {
		return base, err
	}
	s, err := d.load()
	if err != nil {
		return nil, err
	}
	return state.NewBase(s), nil
}

// readWorkspaceRow reads the workspace's row alone (Store.ReadWorkspaceRow):
// nil when the database or the row does not exist yet.
func (d *dbStore) readWorkspaceRow() (*state.State, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	db, err := d.handle(false) // makes sure of the schema
	if err != nil || db == nil {
		return nil, err
	}
	var s *state.State
	err = retryBusy(func() error {
		var err error
		s, _, err = sqlstate.ScanWorkspaceRow(db.QueryRowContext(context.Background(), sqlstate.SQLite.Rewrite(sqlstate.SelectHeader), d.ws).Scan)
		return err
	})
	return s, d.wrap("reading the state", err)
}

// readBase reads the records of the state into a Base whose people are
// read from the same transaction; nil without error when the state holds
// calls not folded in yet.
func (d *dbStore) readBase() (*state.Base, error) {
	db, err := sql.Open("sqlite", d.path+sqliteDSN)
	if err != nil {
		return nil, d.cannotRead(err)
	}
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		db.Close()
		return nil, d.wrap("starting a read", err)
	}
	done := func() error {
		tx.Rollback()
		return db.Close()
	}
	r := &sqlstate.Reader{D: sqlstate.SQLite, Q: tx, WS: d.ws}
	s, kept, pending, found, err := r.ReadRecords(ctx)
	if err != nil || pending {
		done()
		if err != nil {
			return nil, d.wrap("reading the state", err)
		}
		return nil, nil
	}
	if !found {
		done()
		s = state.New()
		s.Track()
		return state.NewBase(s), nil
	}
	return state.NewStoredBase(s, kept, r.People(ctx, db, done, func(err error) error { return d.wrap("reading the state", err) })), nil
}
