package state

import (
	"fmt"

	"github.com/leadsync/leadsync/internal/textfmt"
)

// Lead IDs that name nobody: a search's lead list holding the ID of a
// person the state does not have. leadsync never writes one (a removal
// cuts the lists that name the people it removes), but a state that holds
// some is refused by Check and by a push, and its exports would drop those
// rows without a word. state recover drops them (DropMissingLeads): they
// carry nothing, so nothing is lost and nothing is fetched again.

// MissingLeads counts the lead IDs of a state's searches that name a
// person it does not have.
type MissingLeads struct {
	// IDs is how many lead IDs name nobody, Searches in how many lists.
	IDs, Searches int
}

// missingLeadsFix is what the user runs to drop lead IDs that name
// nobody, as every error that finds one says.
const missingLeadsFix = "run leadsync state recover on the state this came from and pull it again, or on this file with --state: it drops lead IDs that name nobody (nothing is fetched again)"

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

// DropMissingLeads takes out of the searches' lead lists the IDs of people
// s does not have, in place (the order of the others kept), and says how
// many it took from how many lists; the lists it changes are written by
// the next commit. s must be read whole: a partial state holds only the
// people it read.
func (s *State) DropMissingLeads() (MissingLeads, error) {
	if s.Partial() {
		return MissingLeads{}, fmt.Errorf("the lead lists of a state read in part cannot be checked against its people")
	}
	var m MissingLeads
	for addr, v := range s.Searches {
		if v == nil {
			continue
		}
		kept := make([]string, 0, len(v.LeadIDs))
		for _, id := range v.LeadIDs {
			if _, ok := s.People[id]; ok {
				kept = append(kept, id)
			}
		}
		if n := len(v.LeadIDs) - len(kept); n > 0 {
			v.LeadIDs = kept
			m.IDs += n
			m.Searches++
			s.touchSearch(addr)
		}
	}
	return m, nil
}
