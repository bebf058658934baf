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
					sumRow{styleTitle, []any{"Sub-searches still at the cap (incomplete)"}},
					sumRow{styleHeader, []any{"Search", "Filters added", "Results"}})
			}
			rows = append(rows, sumRow{stylePlain, []any{addr, leaf, api.MaxResults}})
		}
	}
	return rows
}
