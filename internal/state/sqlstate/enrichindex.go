package sqlstate

import (
	"database/sql"
	"fmt"
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// The store's answers to state.EnrichIndex, each from an index.

func (w wrapped) CountEnrichedBefore(addr string, before time.Time) (int, error) {
	if before.IsZero() {
		var n int
		err := w.p.r.Q.QueryRowContext(w.p.ctx, w.p.r.D.Rewrite(CountEnrichedBy), w.p.r.WS, addr).Scan(&n)
		return n, w.err(err)
	}
	var n int
	err := w.p.r.Q.QueryRowContext(w.p.ctx, w.p.r.D.Rewrite(CountEnrichedBefore), w.p.r.WS, addr, w.p.r.D.TimeValue(before)).Scan(&n)
	return n, w.err(err)
}

func (w wrapped) CopiedBy(addr string) ([]string, error) {
	ids, err := w.p.copies(addr)
	return ids, w.err(err)
}

func (w wrapped) Left() ([]string, error) {
	ids, err := w.p.ids(SelectLeft)
	return ids, w.err(err)
}

func (w wrapped) Pageless() ([]string, error) {
	ids, err := w.p.ids(SelectPageless)
	return ids, w.err(err)
}

func (w wrapped) Enrichers() ([]string, error) {
	addrs, err := w.p.ids(SelectEnrichers)
	return addrs, w.err(err)
}

func (w wrapped) Sketched(addr string, before time.Time) ([]*state.Person, error) {
	ps, err := w.p.sketched(addr, before)
	return ps, w.err(err)
}

var _ state.EnrichedBeforeLister = wrapped{}

func (w wrapped) EnrichedIDsBefore(addr string, before time.Time) ([]string, error) {
	ids, err := w.p.ids(SelectEnrichedIDsBefore, addr, w.p.r.D.TimeValue(before))
	return ids, w.err(err)
}

func (w wrapped) SketchedAmong(ids []string) ([]*state.Person, error) {
	ps, err := w.p.sketchedAmong(ids)
	return ps, w.err(err)
}

func (w wrapped) EnrichedAfter(after string, n int) ([]string, error) {
	return w.AppendEnrichedAfter(nil, after, n)
}

var _ state.EnrichmentPager = wrapped{}

func (w wrapped) AppendEnrichedAfter(dst []string, after string, n int) ([]string, error) {
	q := fmt.Sprintf(SelectEnrichedAfter, w.p.r.D.byteOrder, w.p.r.D.byteOrder, n)
	var packed string
	err := w.p.r.Q.QueryRowContext(w.p.ctx, w.p.r.D.Rewrite(w.p.r.D.packIDs(q)), w.p.r.WS, after).Scan(&packed)
	if err != nil {
		return nil, w.err(err)
	}
	ids, err := appendTexts(dst, packed)
	return ids, w.err(err)
}

// sketchedAmong runs SelectSketchedAmong for ids.
func (p *peopleStore) sketchedAmong(ids []string) ([]*state.Person, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, err := p.r.D.List(ids)
	if err != nil {
		return nil, err
	}
	rows, err := p.r.query(p.ctx, SelectSketchedAmong+" AND "+p.r.D.inList("person_id", "$2"), p.r.WS, list)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*state.Person
	var at sql.NullString
	for rows.Next() {
		q := &state.Person{Enrichment: &state.Enrichment{}}
		q.Lead.PageName = state.PageUnread
		if err := rows.Scan(&q.ID, &q.Enrichment.By, &at); err != nil {
			return nil, err
		}
		if q.Enrichment.EnrichedAt, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("enrichment of %s: %w", q.ID, err)
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// sketched runs SelectSketched.
func (p *peopleStore) sketched(addr string, before time.Time) ([]*state.Person, error) {
	rows, err := p.r.query(p.ctx, SelectSketched, p.r.WS, addr, p.r.D.TimeValue(before))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*state.Person
	var at sql.NullString
	for rows.Next() {
		q := &state.Person{Enrichment: &state.Enrichment{By: addr}}
		q.Lead.PageName = state.PageUnread
		if err := rows.Scan(&q.ID, &at); err != nil {
			return nil, err
		}
		if q.Enrichment.EnrichedAt, err = parseTime(at); err != nil {
			return nil, fmt.Errorf("enrichment of %s: %w", q.ID, err)
		}
		out = append(out, q)
	}
	return out, rows.Err()
}
