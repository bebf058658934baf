package plan

import (
	"strings"

	"github.com/leadsync/leadsync/internal/state"
)

// Paged finds people by page key, as a store's index of page keys does
// (state.PageFinder): Reads.Read follows the page names of a file to
// import through it instead of reading every person.
func (m memStore) Paged(keys []string) ([]string, error) {
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	var ids []string
	for id, p := range m.st.People {
		if p.Lead.PageName != "" && want[state.PageKey(p.Lead.PageName)] {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// pagedOf is how many people of st a page name of r's Pages, or of a
// "page:" ID r names, finds in any letter case.
func pagedOf(st *state.State, r Reads) int {
	keys := map[string]bool{}
	for _, page := range r.Pages {
		keys[state.PageKey(page)] = true
	}
	for _, id := range r.Persons {
		if page, ok := strings.CutPrefix(id, state.PagePrefix); ok {
			keys[state.PageKey(page)] = true
		}
	}
	n := 0
	for _, p := range st.People {
		if p.Lead.PageName != "" && keys[state.PageKey(p.Lead.PageName)] {
			n++
		}
	}
	return n
}
