package export

import (
	"fmt"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// table is the data of one sheet, independent of the file format: a header,
// the kind of each column and a way to fill row i. Rows are produced on
// demand so that a million of them never sit in memory as cells.
type table struct {
	name   string // the configured sheet name
	header []string
	kinds  []cellKind
	n      int
	fill   func(i int, row []cellValue)
	// err, when set, is the error of a read of the rows' people that
	// failed while fill ran (fill then leaves rows empty): a writer checks
	// it before the file is renamed into place.
	err func() error
	// stop, when set, waits for a read of the rows' people still under
	// way (rowPeople's read ahead) and drops it.
	stop func()
	// prefetch, when set, reads the people of rows (fitWidths' samples
	// out of order) in one go before fill asks for them.
	prefetch func(rows []int)
	// halted, when set, says whether the writer is to stop (ErrStopped):
	// checked between batches of rows.
	halted func() error
}

// haltErr is ErrStopped once the table's writer is to stop, else nil.
func (t *table) haltErr() error {
	if t.halted == nil {
		return nil
	}
	return t.halted()
}

// readErr is the error of a read of the rows' people, nil when none
// failed.
func (t *table) readErr() error {
	if t.err == nil {
		return nil
	}
	return t.err()
}

// stopReads waits for the reads of the tables' people still under way
// and drops them: the Base is then free for other reads, and for its
// Close once Write has returned.
func (j *job) stopReads() {
	for _, s := range j.sheets {
		if s.table != nil && s.table.stop != nil {
			s.table.stop()
		}
	}
}

// sheetRows is what a sheet's from-sources give, before columns.
type sheetRows struct {
	sources []string // instance addresses, in order
	ids     idList   // the person of each row, by ID, in row order
	missing []string // sources with nothing in state yet
	// tally counts, as a people sheet's rows are filled, what the
	// Summary says of them.
	tally *rowTally
	// fresh counts a changes sheet's people first seen after the file
	// was last written.
	fresh int
}

// newPeople counts the sheet's people (each once) first seen after the
// file was last written (Options.LastWritten).
func (r sheetRows) newPeople() int {
	if r.tally != nil {
		return r.tally.fresh
	}
	return r.fresh
}

// collectRows returns the people of a sheet in a stable order: the order
// of its from-sources, then each source's result order. With dedupe a
// person appears once (at their first place); without it once per source. With only_new a person is listed by a
// source only when they were first seen in that source's latest run.
// People an exclude block names, and those the sheet's where does not
// keep, are left out. The rows are person IDs; the people are read from
// the Base a page at a time, and only when the sheet needs more than to
// know that they exist (only_new, exclude blocks, where).
func (j *job) collectRows(sh *config.Sheet) (sheetRows, error) {
	r := sheetRows{tally: &rowTally{}}
	r.sources = j.cfg.Resolve(sh.From)
	// Room for every row at once: a million IDs grown by appending
	// would briefly be held twice.
	r.ids = newIDList(j.rowsAtMost(r.sources))
	// The sheet's people: while the export lists nobody else, its own
	// (the export's are then the sheet's: one set of a million IDs, not
	// two).
	in := people{export: j.members}
	if len(j.members) > 0 {
		in.sheet = map[string]struct{}{}
	}
	batch := &pieceBatch{base: j.base, read: sh.OnlyNew || sh.Where != nil || j.ex.x != nil, cols: j.sheetColumns(sh),
		keep: func(pc sourcePiece, people map[string]*state.Person, exist map[string]bool) error {
			for _, id := range pc.ids {
				if err := j.keepRow(sh, &r, in, id, people[id], exist[id], pc); err != nil {
					return err
				}
			}
			return nil
		}}
	defer func() { j.leads = nil }()
	for i, src := range r.sources {
		if err := j.readLeadsAhead(r.sources, i); err != nil {
			return r, err
		}
		a, _ := j.cfg.Addr(src)
		ids, ok, err := j.sourceIDs(a.Kind, src)
		if err != nil {
			return r, err
		}
		if !ok {
			r.missing = append(r.missing, src)
			continue
		}
		// Without dedupe one row per (source, person): a search never
		// lists a person twice, but be safe against a state that does.
		var seen map[string]bool
		if !sh.Dedupe {
			seen = map[string]bool{}
		}
		if err := batch.add(src, ids, sourceRanAt(j.st, src), seen); err != nil {
			return r, err
		}
	}
	return r, batch.flush()
}

// rowsAtMost is how many rows the sources can give at most: the people
// each search kept (Base.Kept, without reading its list), profile read
// and import holds.
func (j *job) rowsAtMost(sources []string) int {
	n := 0
	for _, src := range sources {
		if im := j.st.Imports[src]; im != nil {
			n += len(im.PersonIDs)
		} else if j.st.Profiles[src] != nil {
			n++
		} else if j.st.Searches[src] != nil {
			n += j.kept(src)
		}
	}
	return n
}

// people are the people of the export (by ID) and of the sheet being
// collected: nil while the export lists nobody but the sheet's.
type people struct {
	export, sheet map[string]struct{}
}

// inSheet reports whether the sheet lists id.
func (in people) inSheet(id string) bool {
	s := in.sheet
	if s == nil {
		s = in.export
	}
	_, ok := s[id]
	return ok
}

// add records that the sheet lists id; it reports whether id is new to
// the export and to the sheet.
func (in people) add(id string) (newToExport, newToSheet bool) {
	_, had := in.export[id]
	newToSheet = !in.inSheet(id)
	in.export[id] = struct{}{}
	if in.sheet != nil {
		in.sheet[id] = struct{}{}
	}
	return !had, newToSheet
}

// keepRow adds the row of id from the source of pc to r, unless the
// sheet leaves them out. p is the person when the sheet reads them,
// exists whether they exist (a state that lost a person has nothing to
// write).
func (j *job) keepRow(sh *config.Sheet, r *sheetRows, in people, id string, p *state.Person, exists bool, pc sourcePiece) error {
	if sh.Dedupe && in.inSheet(id) || pc.seen[id] || !exists && p == nil {
		return nil
	}
	if p != nil {
		if sh.OnlyNew && p.FirstSeen.Before(pc.ranAt) {
			return nil // known before this source's latest run
		}
		out, err := j.ex.excluded(p)
		if err != nil {
			return err
		}
		if out {
			if (p.Enrichment == nil || p.Enrichment.ImportedEnrichment()) && j.enrichCandidate(p) {
				j.facts.excluded[id] = true
			}
			return nil
		}
		if ok, err := j.matchPerson(sh, p); err != nil || !ok {
			return err
		}
	}
	if pc.seen != nil {
		pc.seen[id] = true
	}
	i := r.ids.len()
	r.ids.add(id)
	newToExport, newToSheet := in.add(id)
	if newToExport {
		r.tally.firstInExport.set(i)
	}
	if newToSheet {
		r.tally.first.set(i)
	}
	return nil
}

// sheetColumns are what collectRows reads of a sheet's people when no
// exclude block reads them (it reads identifiers, e-mails and domains,
// and an enrich block's where): the columns of its where's fields
// (WhereColumns) and, with only_new, the times seen; nil when it reads
// them whole.
func (j *job) sheetColumns(sh *config.Sheet) *state.PersonColumns {
	if j.ex != nil && j.ex.x != nil {
		return nil
	}
	cols, ok := WhereColumns(sh.WhereFields)
	if !ok {
		return nil
	}
	cols.Seen = cols.Seen || sh.OnlyNew
	return &cols
}

// sourceIDs returns the person IDs a source (addr, of kind k) found in
// its last run, in result order; ok is false when the source has not run
// yet. A search's IDs are read from the store each time (not kept:
// a million IDs are 16 MB of slices).
func (j *job) sourceIDs(k kind.Kind, addr string) (ids []string, ok bool, err error) {
	st := j.st
	switch k {
	case kind.Search:
		if st.Searches[addr] == nil {
			return nil, false, nil
		}
		if ids, ok := j.leads[addr]; ok {
			return ids, true, nil
		}
		ids, err := j.base.LeadIDs(addr)
		if err != nil {
			return nil, false, err
		}
		return ids, true, nil
	case kind.Profile:
		p := st.Profiles[addr]
		if p == nil || p.PersonID == "" {
			return nil, false, nil
		}
		return []string{p.PersonID}, true, nil
	case kind.Import:
		im := st.Imports[addr]
		if im == nil {
			return nil, false, nil
		}
		return im.PersonIDs, true, nil
	}
	return nil, false, nil
}

// sourceRanAt returns when a source's latest run was: the search's run or
// the profile's read; zero when it has not run.
func sourceRanAt(st *state.State, addr string) time.Time {
	if st == nil {
		return time.Time{}
	}
	if s := st.Searches[addr]; s != nil {
		return s.RanAt
	}
	if p := st.Profiles[addr]; p != nil {
		return p.ReadAt
	}
	if im := st.Imports[addr]; im != nil {
		return im.ImportedAt
	}
	return time.Time{}
}

// buildTable makes the table of a sheet from its rows and columns; its
// rows' people are read from the Base as the writer fills the rows.
func (j *job) buildTable(sh *config.Sheet, rows sheetRows) (*table, error) {
	cfg := j.cfg
	names := sh.Columns
	if len(names) == 0 {
		names = config.DefaultColumns
	}
	cols := make([]column, len(names))
	for i, n := range names {
		c, err := columnFor(n, cfg.Settings.ProfileURLTemplate)
		if err != nil {
			return nil, fmt.Errorf("sheet %q: %w", sh.Name, err)
		}
		if n == "foundIn" {
			c = foundInColumn(cfg) // the sources' labels
		}
		cols[i] = c
	}
	labels := make([]string, len(names))
	for i, n := range names {
		labels[i] = sh.Label(n)
	}
	ids := rows.ids
	t := &table{name: sh.Name, header: uniqueHeader(labels), kinds: make([]cellKind, len(cols)), n: ids.len()}
	for i, c := range cols {
		t.kinds[i] = c.kind
	}
	people := newRowPeople(j.base, ids.len(), ids.at)
	t.err, t.stop, t.prefetch = people.error, people.stop, people.prefetch
	t.fill = func(i int, row []cellValue) {
		p := people.person(i)
		if p != nil {
			rows.tally.count(j, i, p)
		}
		var rc rawCache
		for c := range cols {
			row[c] = cellValue{}
			if p != nil {
				cols[c].fill(p, &rc, &row[c])
			}
		}
	}
	return t, nil
}

// uniqueHeader returns the column labels as header cells, numbering repeats
// ("E-mail", "E-mail (2)"): an Excel table needs unique header names.
func uniqueHeader(names []string) []string {
	out := make([]string, len(names))
	seen := map[string]bool{}
	for i, n := range names {
		h := n
		for k := 2; seen[strings.ToLower(h)]; k++ {
			h = fmt.Sprintf("%s (%d)", n, k)
		}
		seen[strings.ToLower(h)] = true
		out[i] = h
	}
	return out
}
