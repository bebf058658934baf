package plan

import (
	"strings"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// The people a plan of enrich blocks reads in sketch (85,000 at 3,000,000
// people: 640 bytes each as a Person and its Enrichment) are packed once
// read (EnrichFacts.Fill: state.CensusSketches, about 4 MB) when nothing
// the plan does asks more of them than the collection of the blocks'
// people: it makes a Person of one as it meets it (sketchMet), and the
// blocks' people to enrich and the claims hold it by its index (member).

// packSketches reports whether the plan of cfg with opts may pack its
// sketches: no exclude block (it learns the company domains of every
// person held), no refresh_on (the owned people and the changes are read
// by Person), no track, import or profile block, no retention, moves or
// other workspaces (each finds people in State.People by ID).
func packSketches(cfg *config.Config, opts Options) bool {
	return cfg.Exclusion() == nil && !anyRefreshOn(cfg) &&
		len(cfg.Tracks)+len(cfg.Imports)+len(cfg.Profiles) == 0 &&
		cfg.Settings.Retention <= 0 && opts.Moved == nil && opts.Reuse == nil
}

// pack packs f's sketches that st does not hold read whole into
// f.packed, and reports whether it did: false when they cannot be packed
// (state.CensusSketchBuilder.Done). One kept by page name ("page:")
// stays a Person in st: State.Person finds it by page name.
func (f *EnrichFacts) pack(st *state.State) bool {
	k, err := state.NewCensusSketchBuilder(f.leadKeys)
	if err != nil {
		return false
	}
	var paged []*state.Person
	for _, p := range f.sketches {
		switch {
		case st.People[p.ID] != nil:
		case strings.HasPrefix(p.ID, state.PagePrefix):
			paged = append(paged, p)
		default:
			s, err := state.CensusSketchOf(p, f.leadKeys)
			if err == nil {
				err = k.Add(s)
			}
			if err != nil {
				return false
			}
		}
	}
	t := k.Done()
	if t == nil {
		return false
	}
	for _, p := range paged {
		if st.People[p.ID] == nil {
			st.People[p.ID] = p
		}
	}
	f.packed, f.sketches = t, paged
	return true
}
