package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// The workspace read as a backend.Stream (state pull, and state push from
// a workspace): its header and records, then its people a batch at a
// time, from one snapshot, so that a state of millions of people is never
// held whole.

var _ backend.Streamer = (*Backend)(nil)

// OpenStream reads the workspace's state as Load does (the calls of an
// interrupted apply, the schema's erasure record), from one read-only
// REPEATABLE READ snapshot held until Close: the people pass in batches
// in the order of their IDs, byte by byte as a state file sorts them (a
// cursor), each batch's enrichments and histories asked by their IDs. A
// workspace whose interrupted apply left calls not folded in yet, or a
// schema not of this version, is loaded whole.
func (b *Backend) OpenStream() (backend.Stream, error) {
	b.mu.Lock()
	ctx, cancel := context.WithCancel(context.Background())
	st, err := b.openStream(ctx)
	if err != nil || st == nil {
		cancel()
		b.mu.Unlock()
		if err != nil {
			return nil, err
		}
		s, err := b.Load()
		if err != nil {
			return nil, err
		}
		return backend.MemoryStream(s, b.Describe()), nil
	}
	st.cancel = cancel
	return st, nil
}

// pgStream is the workspace read as a backend.Stream; it holds b.mu and a
// read transaction until Close.
type pgStream struct {
	b      *Backend
	tx     pgx.Tx
	ctx    context.Context
	cancel context.CancelFunc
	header *state.State
	erased map[string]bool
	names  map[int32]string // the workspace's addresses by number, once read
}

// openStream starts the read; nil without error when the state must be
// loaded whole. The caller holds b.mu.
func (b *Backend) openStream(ctx context.Context) (*pgStream, error) {
	c, err := b.c(ctx)
	if err != nil {
		return nil, err
	}
	v, err := b.checkedVersion(ctx, c)
	if err != nil || v < SchemaVersion {
		return nil, err
	}
	tx, err := c.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, b.wrap("starting a read", err)
	}
	st := &pgStream{b: b, tx: tx, ctx: ctx}
	h, pending, err := b.readHeader(ctx, tx, b.workspace)
	if err == nil && h != nil && !pending {
		st.header = h
		var entries []*state.Suppression
		if entries, err = b.erasures(ctx, tx); err == nil {
			st.erased, err = h.HonourStreamed(entries, st.People)
		}
	}
	if err != nil || st.header == nil {
		tx.Rollback(ctx)
		return nil, b.wrap("reading the state", err)
	}
	return st, nil
}

// readHeader reads the header of workspace ws and its records but the
// people; nil when it has no row. pending says calls of an interrupted
// apply wait in the events table.
func (b *Backend) readHeader(ctx context.Context, q querier, ws string) (s *state.State, pending bool, err error) {
	s = state.New()
	var usage, extra []byte
	var created time.Time
	err = q.QueryRow(ctx, b.sql(`SELECT lineage, serial, format_version, leadsync_version, service, configuration, usage, extra, created_at,
		EXISTS (SELECT 1 FROM {s}.events e WHERE e.workspace = w.name) FROM {s}.workspaces w WHERE name = $1`), ws).
		Scan(&s.Lineage, &s.Serial, &s.FormatVersion, &s.LeadsyncVersion, &s.Service, &s.Configuration, &usage, &extra, &created, &pending)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil || pending {
		return nil, pending, err
	}
	if err := decodeHeader(s, created, usage, extra); err != nil {
		return nil, false, err
	}
	for _, read := range []func(context.Context, querier, *Backend, string, *state.State) error{readSearches, readProfileReads, readFailures} {
		if err := read(ctx, q, b, ws, s); err != nil {
			return nil, false, err
		}
	}
	return s, false, nil
}

func (st *pgStream) Describe() string     { return st.b.Describe() }
func (st *pgStream) Header() *state.State { return st.header }

// People passes the people through a cursor, backend.StreamBatch at a
// time, without those the erasure record removed.
func (st *pgStream) People(fn func([]*state.Person) error) error {
	var ferr error
	err := st.people(func(batch []*state.Person) error {
		keep := batch[:0]
		for _, p := range batch {
			if !st.erased[p.ID] {
				keep = append(keep, p)
			}
		}
		ferr = fn(keep)
		return ferr
	})
	if ferr != nil {
		return ferr
	}
	return st.b.wrap("reading the people", err)
}

func (st *pgStream) people(fn func([]*state.Person) error) error {
	b, ctx, tx := st.b, st.ctx, st.tx
	names, err := addressNames(ctx, tx, b, b.workspace)
	if err != nil {
		return err
	}
	st.names = names
	if _, err := tx.Exec(ctx, b.sql(`DECLARE leadsync_people NO SCROLL CURSOR FOR SELECT id, `+strings.Join(fieldColumns(leadCols), ", ")+`,
		first_seen, last_seen, found_by, profile, profile_read_at, raw, extra, status, status_since, checked_at FROM {s}.people
		WHERE workspace = $1 ORDER BY id COLLATE "C"`), b.workspace); err != nil {
		return err
	}
	fetch := fmt.Sprintf(`FETCH %d FROM leadsync_people`, backend.StreamBatch)
	batch := make([]*state.Person, 0, backend.StreamBatch)
	for {
		rows, err := tx.Query(ctx, fetch)
		if err != nil {
			return err
		}
		batch = batch[:0]
		if err := scanPeople(rows, names, func(p *state.Person) { batch = append(batch, p) }); err != nil {
			return err
		}
		if len(batch) == 0 {
			_, err := tx.Exec(ctx, `CLOSE leadsync_people`)
			return err
		}
		if err := st.attach(batch); err != nil {
			return err
		}
		if err := fn(batch); err != nil {
			return err
		}
	}
}

// attach gives the people of batch their enrichments and histories.
func (st *pgStream) attach(batch []*state.Person) error {
	ids := make([]string, len(batch))
	byID := make(map[string]*state.Person, len(batch))
	for i, p := range batch {
		ids[i] = p.ID
		byID[p.ID] = p
	}
	enrichments, err := readEnrichmentsOf(st.ctx, st.tx, st.b, st.b.workspace, ids, st.names)
	if err != nil {
		return err
	}
	for _, r := range enrichments {
		if p := byID[r.id]; p != nil {
			p.Enrichment = r.e
		}
	}
	history, err := readHistoryOf(st.ctx, st.tx, st.b, st.b.workspace, ids, st.names)
	if err != nil {
		return err
	}
	for _, h := range history {
		if p := byID[h.id]; p != nil {
			p.History = append(p.History, h.d)
		}
	}
	return nil
}

// Close ends the read.
func (st *pgStream) Close() error {
	if st.tx == nil {
		return nil
	}
	st.tx.Rollback(st.ctx)
	st.tx = nil
	st.cancel()
	st.b.mu.Unlock()
	return nil
}
