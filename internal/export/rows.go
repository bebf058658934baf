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
}

// sheetRows is what a sheet's from-sources give, before columns.
type sheetRows struct {
	sources []string        // instance addresses, in order
	people  []*state.Person // one per row, in row order
	missing []string        // sources with nothing in state yet
	// excluded are the people the exclude blocks took out (each once).
	excluded []*state.Person
}

// collectRows returns the people of a sheet in a stable order: the order of
// its from-sources, then each source's result order. With dedupe a person
// appears once (at their first place); without it once per source. With
// only_new a person is listed by a source only when they were first seen in
// that source's latest run. People an exclude block names are left out.
func collectRows(cfg *config.Config, sh *config.Sheet, st *state.State, ex *excluder) sheetRows {
	var r sheetRows
	r.sources = cfg.Resolve(sh.From)
	seen := map[string]bool{}
	out := map[*state.Person]bool{}
	for _, src := range r.sources {
		a, _ := cfg.Addr(src)
		ids, ok := sourceIDs(st, a.Kind, src)
		ranAt := sourceRanAt(st, src)
		if !ok {
			r.missing = append(r.missing, src)
			continue
		}
		if !sh.Dedupe {
			// One row per (source, person): a search never lists a person
			// twice, but be safe against a state that does.
			seen = map[string]bool{}
		}
		for _, id := range ids {
			if seen[id] {
				continue
			}
			p := st.People[id]
			if p == nil {
				continue // a state that lost a person: nothing to write
			}
			if sh.OnlyNew && p.FirstSeen.Before(ranAt) {
				continue // known before this source's latest run
			}
			if ex.excluded(p) {
				if !out[p] {
					out[p] = true
					r.excluded = append(r.excluded, p)
				}
				continue
			}
			seen[id] = true
			r.people = append(r.people, p)
		}
	}
	return r
}

// sourceIDs returns the person IDs a source (addr, of kind k) found in
// its last run, in result order; ok is false when the source has not run
// yet.
func sourceIDs(st *state.State, k kind.Kind, addr string) (ids []string, ok bool) {
	if st == nil {
		return nil, false
	}
	switch k {
	case kind.Search:
		s := st.Searches[addr]
		if s == nil {
			return nil, false
		}
		return s.LeadIDs, true
	case kind.Profile:
		p := st.Profiles[addr]
		if p == nil || p.PersonID == "" {
			return nil, false
		}
		return []string{p.PersonID}, true
	case kind.Import:
		im := st.Imports[addr]
		if im == nil {
			return nil, false
		}
		return im.PersonIDs, true
	}
	return nil, false
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

// buildTable makes the table of a sheet from its rows and columns.
func buildTable(sh *config.Sheet, rows sheetRows, cfg *config.Config) (*table, error) {
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
	t := &table{name: sh.Name, header: uniqueHeader(labels), kinds: make([]cellKind, len(cols)), n: len(rows.people)}
	for i, c := range cols {
		t.kinds[i] = c.kind
	}
	people := rows.people
	t.fill = func(i int, row []cellValue) {
		p := people[i]
		var rc rawCache
		for j := range cols {
			row[j] = cellValue{}
			cols[j].fill(p, &rc, &row[j])
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
