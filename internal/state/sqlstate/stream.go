package sqlstate

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/leadsync/leadsync/internal/state"
)

// A state read in two parts (backend.Stream: state push): the header with
// every record but the people, then the people in batches, each batch
// with its enrichments and histories, in the order of their IDs. Each
// batch is three queries over a range of IDs that the primary keys
// answer, so that a pass holds one batch at a time.

// Batch queries, in PostgreSQL's spelling. SQLite reads each person as
// one json_array text (packed.go).
var (
	selectPeopleBatchPacked = SelectPeoplePacked + ` AND id > $2 ORDER BY id LIMIT $3`
	selectEnrichmentsRange  = SelectEnrichments + ` AND person_id >= $2 AND person_id <= $3`
	selectHistoryRange      = `SELECT person_id, n, field, value_before, value_after, at, by_address, call
		FROM {s}.person_history WHERE workspace = $1 AND person_id >= $2 AND person_id <= $3 ORDER BY person_id, n`
	countEvents = `SELECT count(*) FROM {s}.events WHERE workspace = $1`
)

// ReadHeader reads the state's header: everything but the people (and
// the calls an apply recorded and did not fold in: pending says there are
// some, which only a whole Read applies). found is false when the
// workspace has no row.
func (r *Reader) ReadHeader(ctx context.Context) (s *state.State, pending, found bool, err error) {
	s = state.New()
	var usage string
	var extra sql.NullString
	err = r.Q.QueryRowContext(ctx, r.D.Rewrite(SelectHeader), r.WS).
		Scan(&s.Lineage, &s.Serial, &s.FormatVersion, &s.LeadsyncVersion, &usage, &extra)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, false, nil
	}
	if err != nil {
		return nil, false, false, err
	}
	if s.FormatVersion > state.FormatVersion {
		return nil, false, false, fmt.Errorf("the workspace holds a state of format_version %d (written by leadsync %s); this leadsync reads format_version %d or older: upgrade leadsync", s.FormatVersion, s.LeadsyncVersion, state.FormatVersion)
	}
	if usage != "" {
		if err := json.Unmarshal([]byte(usage), &s.Usage); err != nil {
			return nil, false, false, fmt.Errorf("usage: %w", err)
		}
	}
	if err := StateExtra.Decode([]byte(extra.String), s); err != nil {
		return nil, false, false, err
	}
	for _, read := range []func(context.Context, *state.State) error{r.searches, r.profileReads, r.failures} {
		if err := read(ctx, s); err != nil {
			return nil, false, false, err
		}
	}
	var n int
	if err := r.Q.QueryRowContext(ctx, r.D.Rewrite(countEvents), r.WS).Scan(&n); err != nil {
		return nil, false, false, err
	}
	return s, n > 0, true, nil
}

// PeopleBatches passes the people to fn, n at a time in the order of
// their IDs, each with their enrichment and history (SQLite only: the
// rows are read packed).
func (r *Reader) PeopleBatches(ctx context.Context, n int, fn func([]*state.Person) error) error {
	if !r.D.packRows {
		return fmt.Errorf("PeopleBatches reads %s's packed rows only", SQLite.Name)
	}
	batch := make([]*state.Person, 0, n)
	byID := make(map[string]*state.Person, n)
	after := ""
	for {
		var err error
		if batch, err = r.peopleAfter(ctx, after, n, batch[:0]); err != nil || len(batch) == 0 {
			return err
		}
		clear(byID)
		for _, p := range batch {
			byID[p.ID] = p
		}
		first, last := batch[0].ID, batch[len(batch)-1].ID
		if err := r.enrichmentsIn(ctx, first, last, byID); err != nil {
			return err
		}
		if err := r.historyIn(ctx, first, last, byID); err != nil {
			return err
		}
		if err := fn(batch); err != nil {
			return err
		}
		if len(batch) < n {
			return nil
		}
		after = last
	}
}

// peopleAfter appends to out the first n people whose ID sorts after
// after.
func (r *Reader) peopleAfter(ctx context.Context, after string, n int, out []*state.Person) ([]*state.Person, error) {
	rows, err := r.query(ctx, selectPeopleBatchPacked, r.WS, after, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	shared := lists{}
	v := make([]sql.NullString, peopleCols)
	var row string
	for rows.Next() {
		if err := rows.Scan(&row); err != nil {
			return nil, fmt.Errorf("people: %w", err)
		}
		if err := splitPacked(row, v); err != nil {
			return nil, fmt.Errorf("people: %w", err)
		}
		p, err := packedPerson(v)
		if err != nil {
			return nil, fmt.Errorf("people: %w", err)
		}
		k := 1 + len(LeadCols)
		if err := readPerson(p, shared, v[k], v[k+1], v[k+2], v[k+3], v[k+4], v[k+5], v[k+6], v[k+8], v[k+9]); err != nil {
			return nil, fmt.Errorf("person %s: %w", p.ID, err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// enrichmentsIn gives the enrichments of the people from first to last
// to the people of byID.
func (r *Reader) enrichmentsIn(ctx context.Context, first, last string, byID map[string]*state.Person) error {
	rows, err := r.query(ctx, selectEnrichmentsRange, r.WS, first, last)
	if err != nil {
		return err
	}
	defer rows.Close()
	var at, extra sql.NullString
	scan := make([]any, 0, 3+len(ResultCols)+1)
	for rows.Next() {
		var id string
		e := &state.Enrichment{}
		scan = append(scan[:0], &id, &at, &e.By)
		for _, f := range ResultCols {
			if f.EnrichedInt != nil {
				scan = append(scan, f.EnrichedInt(&e.Result))
			} else {
				scan = append(scan, f.Enriched(&e.Result))
			}
		}
		scan = append(scan, &extra)
		if err := rows.Scan(scan...); err != nil {
			return fmt.Errorf("enrichments: %w", err)
		}
		if e.EnrichedAt, err = parseTime(at); err != nil {
			return fmt.Errorf("enrichment of %s: %w", id, err)
		}
		if err := EnrichmentExtra.Decode([]byte(extra.String), e); err != nil {
			return fmt.Errorf("enrichment of %s: %w", id, err)
		}
		if p := byID[id]; p != nil {
			p.Enrichment = e
		}
	}
	return rows.Err()
}

// historyIn gives the history entries of the people from first to last
// to the people of byID, in order.
func (r *Reader) historyIn(ctx context.Context, first, last string, byID map[string]*state.Person) error {
	rows, err := r.query(ctx, selectHistoryRange, r.WS, first, last)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int
		var at sql.NullString
		var d state.Drift
		if err := rows.Scan(&id, &n, &d.Field, &d.Before, &d.After, &at, &d.By, &d.Call); err != nil {
			return fmt.Errorf("person history: %w", err)
		}
		if d.At, err = parseTime(at); err != nil {
			return fmt.Errorf("person history of %s: %w", id, err)
		}
		if p := byID[id]; p != nil {
			p.History = append(p.History, d)
		}
	}
	return rows.Err()
}

// ReplaceStream makes the state of header and people (one pass over the
// people, in batches) the workspace's whole state, as Replace does:
// every row of the workspace is deleted, then header's rows and the
// people's written, with header.Serial as the serial. An error from
// people leaves the transaction to be rolled back.
func (w *Writer) ReplaceStream(ctx context.Context, header *state.State, people func(fn func([]*state.Person) error) error, created any) error {
	for _, t := range WorkspaceTables {
		if _, err := w.Tx.ExecContext(ctx, w.D.Rewrite(`DELETE FROM {s}.`+t.Name+` WHERE `+t.Column+` = $1`), w.WS); err != nil {
			return err
		}
	}
	if err := w.ensureWorkspace(ctx, header, created); err != nil {
		return err
	}
	err := people(func(batch []*state.Person) error {
		for _, p := range batch {
			if err := w.insertPerson(ctx, p); err != nil {
				return fmt.Errorf("person %s: %w", p.ID, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	ch := &state.Changes{Searches: keySet(header.Searches), Profiles: keySet(header.Profiles), Failures: keySet(header.Failures), Usage: true}
	if err := w.changes(ctx, header, ch); err != nil {
		return err
	}
	if err := w.meta(ctx, header); err != nil {
		return err
	}
	_, err = w.exec(ctx, SetSerial, w.WS, int64(header.Serial))
	return err
}

// insertPerson writes the rows of p, its enrichment and its history into
// a workspace that holds none of them.
func (w *Writer) insertPerson(ctx context.Context, p *state.Person) error {
	v, err := PersonValues(w.D, w.WS, p)
	if err != nil {
		return err
	}
	if _, err := w.exec(ctx, UpsertSQL("people", PeopleCols), v...); err != nil {
		return err
	}
	if p.Enrichment != nil {
		if v, err = EnrichmentValues(w.D, w.WS, p.ID, p.Enrichment); err != nil {
			return err
		}
		if _, err := w.exec(ctx, UpsertSQL("enrichments", EnrichmentCols), v...); err != nil {
			return err
		}
	}
	for i := range p.History {
		if _, err := w.exec(ctx, InsertHistory, HistoryValues(w.D, w.WS, p.ID, i, &p.History[i])...); err != nil {
			return err
		}
	}
	return nil
}
