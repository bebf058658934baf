package sqlstate

import (
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
