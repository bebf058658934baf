package sqlstate

import (
	"context"
	"fmt"

	"github.com/leadsync/leadsync/internal/state"
)

// A state read in two parts (backend.Stream: state push): the header with
// every record but the people, then the people in batches, each batch
// with its enrichments and histories, in the order of their IDs. Each
// batch is three queries over a range of IDs that the primary keys
// answer, so that a pass holds one batch at a time.

// ReadHeader reads the state's header: everything but the people, the
// searches with their lead IDs (ReadRecords without them), and pending
// when an apply recorded calls it did not fold in (only a whole Read
// applies them). found is false when the workspace has no row.
func (r *Reader) ReadHeader(ctx context.Context) (s *state.State, pending, found bool, err error) {
	s, _, pending, found, err = r.readRecords(ctx, true)
	return s, pending, found, err
}

// PeopleBatches passes the people to fn, n at a time in the order of
// their IDs, each with their enrichment and history: the pages of a
// Base's store (After), read in the caller's transaction.
func (r *Reader) PeopleBatches(ctx context.Context, n int, fn func([]*state.Person) error) error {
	p := &peopleStore{r: r, ctx: ctx, dec: newPersonDecoder()}
	after := ""
	for {
		batch, err := p.After(after, n)
		if err != nil || len(batch) == 0 {
			return err
		}
		if err := fn(batch); err != nil {
			return err
		}
		if len(batch) < n {
			return nil
		}
		after = batch[len(batch)-1].ID
	}
}

// ReplaceStream makes the state of header and people (one pass over the
// people, in batches) the workspace's whole state, as Replace does:
// every row of the workspace is deleted (resetWorkspace), then header's
// rows written, with header.Serial as the serial, then the people's
// (people is called once the header's rows are written). An error from people leaves the
// transaction to be rolled back.
func (w *Writer) ReplaceStream(ctx context.Context, header *state.State, people func(fn func([]*state.Person) error) error, created any) error {
	if err := w.resetWorkspace(ctx, header, created); err != nil {
		return err
	}
	ch := &state.Changes{Searches: keySet(header.Searches), Profiles: keySet(header.Profiles), Failures: keySet(header.Failures), Usage: true}
	if err := w.changes(ctx, header, ch); err != nil {
		return err
	}
	if err := w.meta(ctx, header); err != nil {
		return err
	}
	if _, err := w.exec(ctx, SetSerial, w.WS, int64(header.Serial)); err != nil {
		return err
	}
	insert := func(batch []*state.Person) error {
		for _, p := range batch {
			if err := w.insertPerson(ctx, p); err != nil {
				return fmt.Errorf("person %s: %w", p.ID, err)
			}
		}
		return nil
	}
	if w.Conn != nil {
		b := &bulk{conn: w.Conn, d: w.D, ws: w.WS}
		defer b.close()
		insert = func(batch []*state.Person) error {
			if err := w.numberBatch(ctx, batch); err != nil {
				return err
			}
			b.nums = w.nums
			return b.insertBatch(ctx, batch)
		}
	}
	return people(insert)
}

// insertPerson writes the rows of p, its enrichment and its history into
// a workspace that holds none of them.
func (w *Writer) insertPerson(ctx context.Context, p *state.Person) error {
	nums, err := w.numbersFor(ctx, AddressesOf(p))
	if err != nil {
		return err
	}
	v, err := PersonValues(w.D, w.WS, p, nums)
	if err != nil {
		return err
	}
	if _, err := w.exec(ctx, UpsertSQL("people", PeopleCols), v...); err != nil {
		return err
	}
	if p.Enrichment != nil {
		if v, err = EnrichmentValues(w.D, w.WS, p.ID, p.Enrichment, nums); err != nil {
			return err
		}
		if _, err := w.exec(ctx, UpsertSQL("enrichments", EnrichmentCols), v...); err != nil {
			return err
		}
	}
	return w.insertHistory(ctx, p, 0, nums)
}
