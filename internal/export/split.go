package export

import (
	"fmt"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// splitNote is the Summary's note on a split search: how many sub-searches
// ran, how many people they found, and whether the result is complete.
func splitNote(rec *state.Search) string {
	ss := rec.SplitSummary()
	return fmt.Sprintf("split into %s (the search itself included), %s found: %s",
		textfmt.Plural(ss.SubSearches, "sub-search"), textfmt.Plural(ss.People, "person"), ss.Verdict())
}

// splitUnderwayNote is the Summary's note on a search whose split run
// stopped before completing (an interrupted apply, a sub-search that
// failed): "" when none is under way. The people of such a run join the
// search (and this export) only when the run completes, as the plan and
// state count them; the note says how far it got, so a first run that was
// stopped does not read as "not run yet" over an empty sheet.
func splitUnderwayNote(st *state.State, addr string) string {
	t := st.Splits[addr]
	if t == nil {
		return ""
	}
	people := map[string]bool{}
	for _, n := range t.Nodes {
		for _, id := range n.LeadIDs {
			people[id] = true
		}
	}
	if st.Searches[addr] == nil {
		return fmt.Sprintf("split under way: %s run, %s found so far, not in this export until the split completes; leadsync apply resumes it",
			textfmt.Plural(len(t.Nodes), "sub-search"), textfmt.Plural(len(people), "person"))
	}
	return fmt.Sprintf("a new split run is under way (%s run, %s found so far); these rows are from the last complete run; leadsync apply resumes it",
		textfmt.Plural(len(t.Nodes), "sub-search"), textfmt.Plural(len(people), "person"))
}

// splitLeafRows lists, for the split searches among addrs, the
// sub-searches still at the cap after the last dimension: where the
// result is incomplete. None when every split search is complete.
func (j *job) splitLeafRows(addrs []string) []sumRow {
	var rows []sumRow
	for _, addr := range addrs {
		rec := j.st.Searches[addr]
		if rec == nil || rec.Split == nil {
			continue
		}
		for _, leaf := range rec.SplitSummary().Saturated {
			if rows == nil {
				rows = append(rows,
					sumRow{style: styleTitle, cells: []any{"Sub-searches still at the cap (incomplete)"}},
					sumRow{style: styleHeader, cells: []any{"Search", "Filters added", "Results"}})
			}
			rows = append(rows, sumRow{style: stylePlain, cells: []any{j.sourceName(addr), leaf, api.MaxResults}})
		}
	}
	return rows
}
