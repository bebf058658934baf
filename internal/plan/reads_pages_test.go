package plan

import (
	"slices"
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

// Enriched are the people holding an enrichment the block at addr made
// or copied, as a store's index gives them (Reads.EnrichedIDs).
func (m memStore) Enriched(addr string) ([]string, error) {
	return state.NewBase(m.st).Enriched(addr)
}

// enrichedOf is how many people r reads for the enrich blocks its
// tracks watch (Reads.EnrichedIDs), some of them counted twice.
func enrichedOf(st *state.State, r Reads) int {
	ids, _ := r.EnrichedIDs(state.NewBase(st), st)
	return len(ids)
}

// unreadOf reports whether st, read in part, lacks a person of a lead
// list of addrs whom whole holds.
func unreadOf(st, whole *state.State, addrs []string) bool {
	for _, a := range addrs {
		for _, id := range whole.Searches[a].LeadIDs {
			if whole.People[id] != nil && st.People[id] == nil {
				return true
			}
		}
	}
	return false
}

// TrackSketchEach gives the sketches in the order of IDs, as SQLite does
// (sqlstate.SelectTrackSketched), when the state holds an even number of
// people, else in no order, as PostgreSQL does: random worlds plan both.
func (m memStore) TrackSketchEach(by string, fn func(state.TrackSketch) error) error {
	if len(m.st.People)%2 == 1 {
		return state.NewBase(m.st).TrackSketchEach(by, fn)
	}
	var ss []state.TrackSketch
	err := state.NewBase(m.st).TrackSketchEach(by, func(s state.TrackSketch) error {
		ss = append(ss, s)
		return nil
	})
	slices.SortFunc(ss, func(a, b state.TrackSketch) int { return strings.Compare(a.ID, b.ID) })
	for _, s := range ss {
		if err := fn(s); err != nil {
			return err
		}
	}
	return err
}

// sketchedIn reports whether st holds a person of whole in sketch
// (state.TrackSketches, or a Person without their first time seen).
func sketchedIn(st, whole *state.State) bool {
	if st.TrackSketches().Len() > 0 {
		return true
	}
	for id, p := range st.People {
		if q := whole.People[id]; q != nil && p.FirstSeen.IsZero() && !q.FirstSeen.IsZero() {
			return true
		}
	}
	return false
}
