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

// changeRow is one row of a changes sheet: a change of the person of ID
// id.
type changeRow struct {
	id string
	d  state.Drift
}

// collectChanges returns the changes a changes sheet lists, oldest first
// (then by person and field, so that the order is stable), and counts the
// people they are of for the Summary. People an exclude block names are
// left out, as from every sheet. Only the people with a history are read
// (Base.Changed), a page at a time.
func (j *job) collectChanges(sh *config.Sheet) ([]changeRow, sheetRows, error) {
	by := map[string]bool{}
	rows := sheetRows{}
	for _, ref := range sh.Changes {
		addrs := []string{ref}
		if a, _ := j.cfg.Addr(ref); a.Kind.HasInstances() {
			addrs = j.cfg.Resolve([]string{ref}) // a block: each of its instances
		}
		for _, a := range addrs {
			if !by[a] {
				by[a] = true
				rows.sources = append(rows.sources, a)
			}
		}
	}
	var since time.Time
	if sh.Since > 0 {
		since = j.now.Add(-sh.Since)
	}
	ids, err := j.base.Changed()
	if err != nil {
		return nil, rows, err
	}
	var out []changeRow
	page := j.base.PageSize()
	for start := 0; start < len(ids); start += page {
		chunk := ids[start:min(start+page, len(ids))]
		people, err := j.base.People(chunk)
		if err != nil {
			return nil, rows, err
		}
		for _, id := range chunk {
			if out, err = j.changesOf(sh, people[id], by, since, &rows, out); err != nil {
				return nil, rows, err
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case !a.d.At.Equal(b.d.At):
			return a.d.At.Before(b.d.At)
		case a.id != b.id:
			return a.id < b.id
		}
		return fieldOrder(a.d.Field) < fieldOrder(b.d.Field)
	})
	return out, rows, nil
}

// changesOf appends to out the changes of p's history that the sheet
// lists (made by one of the blocks of by, not before since), when the
// sheet keeps p, and counts p in rows and for the Summary.
func (j *job) changesOf(sh *config.Sheet, p *state.Person, by map[string]bool, since time.Time, rows *sheetRows, out []changeRow) ([]changeRow, error) {
	if p == nil {
		return out, nil
	}
	kept := false
	for _, d := range p.History {
		if !by[d.By] || d.At.Before(since) {
			continue
		}
		if !kept {
			if ex, err := j.ex.excluded(p); ex || err != nil {
				return out, err // an exclude block takes them out of every sheet
			}
			ok, err := j.matchPerson(sh, p)
			if err != nil || !ok {
				return out, err
			}
			kept = true
		}
		out = append(out, changeRow{p.ID, d})
	}
	if kept {
		if j.opts.LastWritten != nil && p.FirstSeen.After(*j.opts.LastWritten) {
			rows.fresh++
		}
		if _, in := j.members[p.ID]; !in {
			j.facts.add(p) // else a people sheet's row counts them
			j.members[p.ID] = struct{}{}
		}
	}
	return out, nil
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

// changesTable is the table of a changes sheet; the people of its rows
// are read from the Base as the writer fills the rows.
func (j *job) changesTable(sh *config.Sheet, changes []changeRow) *table {
	tmpl := j.cfg.Settings.ProfileURLTemplate
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
	people := newRowPeople(j.base, len(changes), func(i int) string { return changes[i].id })
	t.err, t.stop, t.prefetch = people.error, people.stop, people.prefetch
	t.fill = func(i int, row []cellValue) {
		r := changes[i]
		p := people.person(i)
		if p == nil {
			clear(row)
			return
		}
		name := fullName(p)
		if name == "" {
			name = p.ID
		}
		before, after := changeValue(r.d, r.d.Before), changeValue(r.d, r.d.After)
		row[0] = cellValue{Text: name}
		row[1] = cellValue{Text: r.d.Field}
		row[2] = cellValue{Text: before}
		row[3] = cellValue{Text: after}
		row[4] = cellValue{Time: r.d.At}
		row[5] = cellValue{Text: r.d.By}
		row[6] = cellValue{Text: p.CurrentEmail()}
		row[7] = cellValue{Text: profileURL(p, tmpl)}
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
// fields it reads as the person's cells show them, or gives what it gave
// for the same values: the configuration's context is fixed and its
// functions pure (config.PersonValuesKey, as the console's where). A
// where evaluated for each of a million people was most of an export's
// CPU time.
func (j *job) matchPerson(sh *config.Sheet, p *state.Person) (bool, error) {
	if sh.Where == nil {
		return true, nil
	}
	fields, err := WhereValues(j.cfg, sh.WhereFields, p)
	if err != nil {
		return false, err
	}
	var arr [128]byte
	key := config.PersonValuesKey(arr[:0], sh.WhereFields, fields)
	memo := j.whereMemo(sh)
	if ok, found := memo.Get(key); found {
		return ok, nil
	}
	ok, err := j.cfg.MatchPerson(sh, fields)
	if err != nil {
		return false, fmt.Errorf("sheet %q: %w", sh.Name, err)
	}
	memo.Put(key, ok)
	return ok, nil
}

// whereMemo is what sh's where gave (wheres), made on first use.
func (j *job) whereMemo(sh *config.Sheet) *config.WhereMemo[bool] {
	memo := j.wheres[sh]
	if memo == nil {
		memo = &config.WhereMemo[bool]{}
		if j.wheres == nil {
			j.wheres = map[*config.Sheet]*config.WhereMemo[bool]{}
		}
		j.wheres[sh] = memo
	}
	return memo
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
