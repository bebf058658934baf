package state

import (
	"fmt"

	"github.com/leadsync/leadsync/internal/textfmt"
)

// Lead IDs that name nobody: a search's lead list holding the ID of a
// person the state does not have. leadsync never writes one (a removal
// cuts the lists that name the people it removes), but a state that holds
// some is refused by Check and by a push, and its exports would drop those
// rows without a word. state recover drops them (nobody.go): they carry
// nothing, so nothing is lost and nothing is fetched again. The other
// records that name nobody are refused in the same words (nobodyError).

// MissingLeads counts the lead IDs of a state's searches that name a
// person it does not have.
type MissingLeads struct {
	// IDs is how many lead IDs name nobody, Searches in how many lists.
	IDs, Searches int
}

// missingLeadsFix is what the user runs to drop lead IDs that name
// nobody, as every error that finds one says.
const missingLeadsFix = "run leadsync state recover on the state this came from and pull it again, or on this file with --state: it drops lead IDs that name nobody (nothing is fetched again)"

// nobodyFix is what the user runs to repair a split node, an import or a
// profile read that names nobody, as every error that finds one says.
const nobodyFix = "run leadsync state recover on the state this came from and pull it again, or on this file with --state: it repairs IDs that name nobody"

// splitNobodyError is the error of Check, and of a push's check, for the
// lead ID id at place i of the node path of the split run at addr (whose
// dimensions are dims), which names nobody.
func splitNobodyError(addr string, dims []SplitDimension, path []string, i int, id string) error {
	return fmt.Errorf("splits.%s: node %q lead_ids[%d]: person %q is not in people: %s", addr, SplitFilters(dims, path), i, id, nobodyFix)
}

// importNobodyError is the error of Check, and of a push's check, for the
// person ID id at place i of the import at addr, which names nobody.
func importNobodyError(addr string, i int, id string) error {
	return fmt.Errorf("imports.%s.person_ids[%d]: person %q is not in people: %s (it takes the ID out of person_ids)", addr, i, id, nobodyFix)
}

// profileNobodyError is the error of Check, and of a push's check, for the
// profile read at addr, whose person id is not in the state.
func profileNobodyError(addr, id string) error {
	return fmt.Errorf("profiles.%s.person_id: person %q is not in people: %s (it removes the read, which the next apply makes again)", addr, id, nobodyFix)
}

// missingLeadError is the error of Check, and of a push's check, for the
// lead ID at place i of the list of the search at addr, which names
// nobody; all counts every such lead ID of the state.
func missingLeadError(addr string, i int, id string, all MissingLeads) error {
	return fmt.Errorf("searches.%s.lead_ids[%d]: person %q is not in people (%s of %s %s nobody): %s",
		addr, i, id, textfmt.Plural(all.IDs, "lead ID"), textfmt.Plural(all.Searches, "search"), nameVerb(all.IDs), missingLeadsFix)
}

// nameVerb is "name" agreeing with n lead IDs.
func nameVerb(n int) string {
	if n == 1 {
		return "names"
	}
	return "name"
}

// countMissingLeads counts the lead IDs of s's searches for which has is
// false; a null search is Check's to report.
func (s *State) countMissingLeads(has func(id string) bool) MissingLeads {
	var m MissingLeads
	for _, v := range s.Searches {
		if v == nil {
			continue
		}
		n := 0
		for _, id := range v.LeadIDs {
			if !has(id) {
				n++
			}
		}
		if n > 0 {
			m.IDs += n
			m.Searches++
		}
	}
	return m
}
