package sqlstate

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/leadsync/leadsync/internal/person"
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
// its ID and what cols names alone (state.LeadPager).
func (w wrapped) LeadsAfter(id string, n int, cols state.PersonColumns) ([]*state.Person, error) {
	ps, err := w.p.leadsAfter(id, n, cols)
	return ps, w.err(err)
}

// leadsAfter is LeadsAfter: one query of the people's columns, joined
// with their enrichments' when cols names any, then one of the company
// changes of the enriched people's histories (companyChanges).
func (p *peopleStore) leadsAfter(id string, n int, cols state.PersonColumns) ([]*state.Person, error) {
	order := p.r.D.byteOrder
	return p.columnsOf(cols, fmt.Sprintf("p.id%s > $2 ORDER BY p.id%s LIMIT %d", order, order, n), id, n)
}

// LeadsOf reads the people of ids that exist, in no order, each holding
// its ID and what cols names alone (state.LeadPager).
func (w wrapped) LeadsOf(ids []string, cols state.PersonColumns) ([]*state.Person, error) {
	ps, err := w.p.leadsOf(ids, cols)
	return ps, w.err(err)
}

// leadsOf is LeadsOf: leadsAfter's queries, of the people of ids.
func (p *peopleStore) leadsOf(ids []string, cols state.PersonColumns) ([]*state.Person, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, err := p.r.D.List(ids)
	if err != nil {
		return nil, err
	}
	return p.columnsOf(cols, p.r.D.inList("p.id", "$2"), list, len(ids))
}

// columnsOf reads the people of cond (on people p, with its parameter
// $2, arg), up to n, each holding its ID and what cols names: one query
// of the people's columns, joined with their enrichments' when cols names
// any, then one of the company changes of the enriched people's
// histories (companyChanges). SQLite gives each row as one text, as it
// gives the people (packed.go).
func (p *peopleStore) columnsOf(cols state.PersonColumns, cond string, arg any, n int) ([]*state.Person, error) {
	lead, enriched, err := cols.Fields()
	if err != nil {
		return nil, err
	}
	q, width := pageQuery(lead, enriched, cols.Seen, p.r.D)
	rows, err := p.r.query(p.ctx, q+cond, p.r.WS, arg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]*state.Person, 0, n)
	v, scan := p.textRow(width)
	var seen [2]timeMemo
	for rows.Next() {
		if err := scan(rows); err != nil {
			return nil, err
		}
		q, err := pagePerson(v, lead, enriched, cols.Seen, &seen)
		if err != nil {
			return nil, fmt.Errorf("person %s: %w", v[0].String, err)
		}
		out = append(out, q)
	}
	if err := rows.Err(); err != nil || len(enriched) == 0 {
		return out, err
	}
	return out, p.companyChanges(out)
}

// pageQuery is the query of columnsOf up to its condition on the
// person, and how many columns its rows have: the ID, the lead fields,
// the times seen (seen), then, with enriched fields, the status, its
// time, the enrichment's time and those fields (NULL for a person never
// enriched).
func pageQuery(lead, enriched []*person.PersonField, seen bool, d *Dialect) (string, int) {
	cols := []string{"p.id"}
	for _, f := range lead {
		cols = append(cols, "p."+f.PG)
	}
	if seen {
		cols = append(cols, "p.first_seen", "p.last_seen")
	}
	from := "{s}.people p"
	if len(enriched) > 0 {
		cols = append(cols, "p.status", "p.status_since", "e.enriched_at")
		for _, f := range enriched {
			cols = append(cols, "e."+f.PG)
		}
		from += " LEFT JOIN {s}.enrichments e ON e.workspace = p.workspace AND e.person_id = p.id"
	}
	list := selectList(cols)
	if d.packRows {
		list = "json_array(" + list + ")"
	}
	return "SELECT " + list + " FROM " + from + " WHERE p.workspace = $1 AND ", len(cols)
}

// pagePerson is the person of the values v of a row of pageQuery.
func pagePerson(v []sql.NullString, lead, enriched []*person.PersonField, seen bool, times *[2]timeMemo) (*state.Person, error) {
	q := &state.Person{ID: v[0].String}
	for i, f := range lead {
		*f.Lead(&q.Lead) = v[1+i].String
	}
	v = v[1+len(lead):]
	var err error
	if seen {
		if q.FirstSeen, err = times[0].parse(v[0]); err != nil {
			return nil, err
		}
		if q.LastSeen, err = times[1].parse(v[1]); err != nil {
			return nil, err
		}
		v = v[2:]
	}
	if len(enriched) == 0 {
		return q, nil
	}
	q.Status = v[0].String
	if q.StatusSince, err = parseTimePtr(v[1]); err != nil || !v[2].Valid {
		return q, err
	}
	q.Enrichment = &state.Enrichment{}
	if q.Enrichment.EnrichedAt, err = parseTime(v[2]); err != nil {
		return nil, err
	}
	for i, f := range enriched {
		*f.Enriched(&q.Enrichment.Result) = v[3+i].String
	}
	return q, nil
}

// companyChanges reads the company changes of the histories of the
// enriched people of ps, in their order, into each one's History
// (state.PersonColumns).
func (p *peopleStore) companyChanges(ps []*state.Person) error {
	byID := map[string]*state.Person{}
	var ids []string
	for _, q := range ps {
		if q.Enrichment != nil {
			byID[q.ID] = q
			ids = append(ids, q.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	list, err := p.r.D.List(ids)
	if err != nil {
		return err
	}
	q := "SELECT person_id, value_after, at FROM {s}.person_history WHERE workspace = $1 AND field = $2 AND " +
		p.r.D.inList("person_id", "$3") + " ORDER BY person_id, n"
	rows, err := p.r.query(p.ctx, q, p.r.WS, state.DriftCompany, list)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var at sql.NullString
		d := state.Drift{Field: state.DriftCompany}
		if err := rows.Scan(&id, &d.After, &at); err != nil {
			return fmt.Errorf("person history: %w", err)
		}
		if d.At, err = parseTime(at); err != nil {
			return fmt.Errorf("person history of %s: %w", id, err)
		}
		byID[id].History = append(byID[id].History, d)
	}
	return rows.Err()
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
