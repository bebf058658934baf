package export

import (
	"fmt"
	"sort"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// Sheets of changes and sheets filtered by where.
//
// A sheet with changes = [...] lists, one row per change (state.Drift),
// what the calls of those blocks saw change in people's histories: the
// person, the field, before, after, when, by which call, the person's
// current e-mail (never a former employer's) and their profile link;
// since keeps the changes of the last while. A sheet's where keeps the
// people (or the changes of the people) for whom it is true.

// changeRow is one row of a changes sheet.
type changeRow struct {
	p *state.Person
	d state.Drift
}

// collectChanges returns the changes a changes sheet lists, oldest first
// (then by person and field, so that the order is stable), and the people
// they are of, each once, for the Summary. People an exclude block names
// are left out, as from every sheet.
func collectChanges(cfg *config.Config, sh *config.Sheet, st *state.State, now time.Time, ex *excluder) ([]changeRow, sheetRows, error) {
	by := map[string]bool{}
	var sources []string
	for _, ref := range sh.Changes {
		addrs := []string{ref}
		if a, _ := cfg.Addr(ref); a.Kind.HasInstances() {
			addrs = cfg.Resolve([]string{ref}) // a block: each of its instances
		}
		for _, a := range addrs {
			if !by[a] {
				by[a] = true
				sources = append(sources, a)
			}
		}
	}
	var since time.Time
	if sh.Since > 0 {
		since = now.Add(-sh.Since)
	}
	var out []changeRow
	seen := map[*state.Person]bool{}
	rows := sheetRows{sources: sources}
	for _, p := range st.People {
		var kept bool
		for _, d := range p.History {
			if !by[d.By] || d.At.Before(since) {
				continue
			}
			if !kept {
				if ex.excluded(p) {
					break // an exclude block takes them out of every sheet
				}
				ok, err := matchPerson(cfg, sh, p)
				if err != nil {
					return nil, rows, err
				}
				if !ok {
					break
				}
				kept = true
			}
			out = append(out, changeRow{p, d})
		}
		if kept && !seen[p] {
			seen[p] = true
			rows.people = append(rows.people, p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case !a.d.At.Equal(b.d.At):
			return a.d.At.Before(b.d.At)
		case a.p.ID != b.p.ID:
			return a.p.ID < b.p.ID
		}
		return fieldOrder(a.d.Field) < fieldOrder(b.d.Field)
	})
	sort.SliceStable(rows.people, func(i, j int) bool { return rows.people[i].ID < rows.people[j].ID })
	return out, rows, nil
}

// fieldOrder ranks the fields of a change as state.DriftFields does.
func fieldOrder(f string) int {
	for i, x := range state.DriftFields {
		if x == f {
			return i
		}
	}
	return len(state.DriftFields)
}

// changesTable is the table of a changes sheet.
func changesTable(sh *config.Sheet, changes []changeRow, tmpl string) *table {
	t := &table{name: sh.Name, n: len(changes)}
	for _, c := range config.ChangeColumns {
		t.header = append(t.header, c.Label)
		kind := kindText
		switch c.Name {
		case "seenAt":
			kind = kindTime
		case "profileUrl":
			kind = kindLink
		}
		t.kinds = append(t.kinds, kind)
	}
	fullName := fieldText(person.FieldByColumn("fullName"))
	t.fill = func(i int, row []cellValue) {
		r := changes[i]
		name := fullName(r.p)
		if name == "" {
			name = r.p.ID
		}
		before, after := changeValue(r.d, r.d.Before), changeValue(r.d, r.d.After)
		row[0] = cellValue{Text: name}
		row[1] = cellValue{Text: r.d.Field}
		row[2] = cellValue{Text: before}
		row[3] = cellValue{Text: after}
		row[4] = cellValue{Time: r.d.At}
		row[5] = cellValue{Text: r.d.By}
		row[6] = cellValue{Text: r.p.CurrentEmail()}
		row[7] = cellValue{Text: profileURL(r.p, tmpl)}
	}
	return t
}

// changeValue is a value of a change as a reader reads it: a status in
// words.
func changeValue(d state.Drift, v string) string {
	if d.Field == state.DriftStatus && v == state.StatusLeft {
		return "left the network"
	}
	return v
}

// matchPerson evaluates a sheet's where for p, with the values of the
// fields it reads as the person's cells show them.
func matchPerson(cfg *config.Config, sh *config.Sheet, p *state.Person) (bool, error) {
	if sh.Where == nil {
		return true, nil
	}
	fields, err := WhereValues(cfg, sh.WhereFields, p)
	if err != nil {
		return false, err
	}
	ok, err := cfg.MatchPerson(sh, fields)
	if err != nil {
		return false, fmt.Errorf("sheet %q: %w", sh.Name, err)
	}
	return ok, nil
}

// WhereValues are the values of p's fields named (person.<field> of a
// sheet's where) as the person's cells show them: what a sheet's where,
// and leadsync console's, read.
func WhereValues(cfg *config.Config, names []string, p *state.Person) (map[string]cty.Value, error) {
	fields := make(map[string]cty.Value, len(names))
	var rc rawCache
	for _, f := range names {
		if f == "validationStatus" {
			fields[f] = cty.StringVal(whereStatus(p))
			continue
		}
		col, err := columnFor(f, cfg.Settings.ProfileURLTemplate)
		if err != nil {
			return nil, err
		}
		var c cellValue
		col.fill(p, &rc, &c)
		fields[f] = cellCty(col.kind, c, config.PersonFieldType(f))
	}
	return fields, nil
}

// whereStatus is person.validationStatus in a sheet's where and the
// validationStatus column: the sheet's word (valid, catch all, not found: the service's empty);
// FormerEmployer for an e-mail of a former employer, LeftNetwork for one
// of someone who left the network; "" when never enriched.
func whereStatus(p *state.Person) string {
	switch {
	case p.Enrichment == nil:
		return ""
	case p.EmailNotCurrent() != "":
		return p.EmailNotCurrent()
	}
	return StatusText(p.Enrichment.Result.ValidationStatus)
}

// cellCty is a cell's value for a where: text as a string, a time as RFC
// 3339 ("" when unknown), a bool (false when unknown: a profile never
// read is not known to be private) or a number (0 when unknown).
func cellCty(kind cellKind, c cellValue, ty cty.Type) cty.Value {
	switch {
	case ty == cty.Bool:
		return cty.BoolVal(!c.Empty && c.Bool)
	case ty == cty.Number:
		if c.Empty {
			return cty.Zero
		}
		return cty.NumberIntVal(c.Num)
	case kind == kindTime:
		if c.Empty || c.Time.IsZero() {
			return cty.StringVal("")
		}
		return cty.StringVal(c.Time.UTC().Format(time.RFC3339))
	}
	return cty.StringVal(c.Text)
}

// filterPeople keeps the people of rows for whom the sheet's where holds.
func filterPeople(cfg *config.Config, sh *config.Sheet, rows sheetRows) (sheetRows, error) {
	if sh.Where == nil {
		return rows, nil
	}
	kept := rows.people[:0:0]
	for _, p := range rows.people {
		ok, err := matchPerson(cfg, sh, p)
		if err != nil {
			return rows, err
		}
		if ok {
			kept = append(kept, p)
		}
	}
	rows.people = kept
	return rows, nil
}
