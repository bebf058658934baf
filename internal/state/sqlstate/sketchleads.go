package sqlstate

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/leadsync/leadsync/internal/state"
)

var _ state.LeadSketcher = wrapped{}

// SketchLeads reads, for the people of ps (a page: state.Base.SketchLeads),
// the people's columns of the lead fields of keys alone, by the primary
// key, and sets those fields (state.LeadSketcher).
func (w wrapped) SketchLeads(ps []*state.Person, keys []string) error {
	return w.err(w.p.sketchLeads(ps, keys))
}

// sketchLeads is SketchLeads.
func (p *peopleStore) sketchLeads(ps []*state.Person, keys []string) error {
	fields, err := state.SketchFields(keys)
	if err != nil || len(ps) == 0 || len(fields) == 0 {
		return err
	}
	byID := make(map[string]*state.Person, len(ps))
	ids := make([]string, len(ps))
	for i, q := range ps {
		byID[q.ID], ids[i] = q, q.ID
	}
	list, err := p.r.D.List(ids)
	if err != nil {
		return err
	}
	cols := make([]string, len(fields))
	for i, f := range fields {
		cols[i] = f.PG
	}
	q := "SELECT id, " + strings.Join(cols, ", ") + " FROM {s}.people WHERE workspace = $1 AND " + p.r.D.inList("id", "$2")
	rows, err := p.r.query(p.ctx, q, p.r.WS, list)
	if err != nil {
		return err
	}
	defer rows.Close()
	var id string
	vals := make([]string, len(fields))
	dst := make([]any, 1+len(fields))
	dst[0] = &id
	for i := range vals {
		dst[1+i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			return err
		}
		if q := byID[id]; q != nil {
			for i, f := range fields {
				*f.Lead(&q.Lead) = vals[i]
			}
		}
	}
	return rows.Err()
}

var _ state.LeadPager = wrapped{}

// LeadsAfter reads a page of people after id, in ID order, each holding
// its ID and the people's columns of the lead fields of keys alone
// (state.LeadPager).
func (w wrapped) LeadsAfter(id string, n int, keys []string) ([]*state.Person, error) {
	ps, err := w.p.leadsAfter(id, n, keys)
	return ps, w.err(err)
}

// leadsAfter is LeadsAfter. SQLite gives each row as one text, as it
// gives the people (packed.go).
func (p *peopleStore) leadsAfter(id string, n int, keys []string) ([]*state.Person, error) {
	fields, err := state.SketchFields(keys)
	if err != nil {
		return nil, err
	}
	cols := []string{"id"}
	for _, f := range fields {
		cols = append(cols, f.PG)
	}
	list, order := selectList(cols), p.r.D.byteOrder
	if p.r.D.packRows {
		list = "json_array(" + list + ")"
	}
	q := fmt.Sprintf("SELECT %s FROM {s}.people WHERE workspace = $1 AND id%s > $2 ORDER BY id%s LIMIT %d", list, order, order, n)
	rows, err := p.r.query(p.ctx, q, p.r.WS, id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]*state.Person, 0, n)
	v, scan := p.textRow(len(cols))
	for rows.Next() {
		if err := scan(rows); err != nil {
			return nil, err
		}
		q := &state.Person{ID: v[0].String}
		for i, f := range fields {
			*f.Lead(&q.Lead) = v[1+i].String
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// textRow gives the values v of a row of n texts and scan, which scans
// each row into them: from one JSON array of them on SQLite
// (splitPacked), else from a column each.
func (p *peopleStore) textRow(n int) (v []sql.NullString, scan func(*sql.Rows) error) {
	v = make([]sql.NullString, n)
	if p.r.D.packRows {
		var row string
		return v, func(rows *sql.Rows) error {
			if err := rows.Scan(&row); err != nil {
				return err
			}
			return splitPacked(row, v)
		}
	}
	dst := make([]any, n)
	for i := range v {
		dst[i] = &v[i]
	}
	return v, func(rows *sql.Rows) error { return rows.Scan(dst...) }
}
