package plan

import (
	"slices"
	"strings"

	"github.com/leadsync/leadsync/internal/state"
)

// A track of the enriched at 3,000,000 people watches the 1,000,000 an
// enrich block enriched: read whole, they took 2.1 GB and most of the
// plan's time. Its plan asks of each only the page name, the status,
// when a read last looked at them and the enrichment's block
// (trackPeople, track): the store reads those columns alone
// (state.TrackSketch), when nothing else the plan does asks more.

// sketchesEnriched reports whether the plan reads the people of
// r.Enriched as state.TrackSketch keeps them (Reads.Sketched): it plans
// a track of the enriched, and nothing that asks more of a person.
// An exclude block matches names, companies and domains; an import its
// members; retention the times people were seen; moves make the plan
// over the state as they leave it. With any of those they are read whole.
func (b *builder) sketchesEnriched(r Reads) bool {
	return len(r.Enriched) > 0 && len(r.Imports) == 0 && len(r.Pages) == 0 &&
		b.cfg.Exclusion() == nil && !b.retains() && b.opts.Moved == nil
}

// enrichedOrSketched are the IDs Read reads whole for r.Enriched
// (EnrichedIDs), and what it does once the others are read: nothing.
// With r.Sketched, no ID: sketch then reads the people of each address
// EnrichedIDs reads as a state.TrackSketch, but those st holds whole by
// then (the people of the sources and records of its tracks, and those
// read by ID: read whole, they say all the plan asks). It packs them
// (state.TrackSketches, st.TrackSketches) as the store gives them. Too
// many to pack, it reads EnrichedIDs whole (whole); when a lead list
// holds an ID kept by page name (pagedLeads), unpack holds them as
// people, or, nil, whole reads them.
func (r Reads) enrichedOrSketched(b *state.Base, st *state.State, whole func([]string) error, unpack func(*state.TrackSketches)) (ids []string, sketch func() error, err error) {
	if !r.Sketched || !b.TrackSketches() || !b.EnrichIndexed() {
		ids, err := r.EnrichedIDs(b, st)
		return ids, func() error { return nil }, err
	}
	by, err := b.Enrichers()
	if err != nil {
		return nil, nil, err
	}
	by = slices.DeleteFunc(by, func(a string) bool {
		return !state.IsImport(a) && !strings.HasPrefix(a, state.ReusedPrefix)
	})
	by = append(by, r.Enriched...)
	return nil, func() error {
		// Each row read is garbage once packed (trackSketchGC).
		defer pagesGC()()
		paged := r.pagedLeads(st)
		k := state.TrackSketchBuilder{Pageless: r.Pageless && !paged}
		for _, addr := range by {
			err := b.TrackSketchEach(addr, func(s state.TrackSketch) error {
				if st.People[s.ID] == nil {
					k.Add(s)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		switch t := k.Done(); {
		case t == nil: // too many to pack: read whole
			ids, err := r.EnrichedIDs(b, st)
			if err != nil {
				return err
			}
			return whole(ids)
		case paged && unpack != nil:
			unpack(t)
		case paged:
			return whole(packedIDs(t))
		default:
			t.ReadOf(by)
			st.SetTrackSketches(t)
		}
		return nil
	}, nil
}

// unpackInto holds the sketches of t in st as people (State.Person
// follows an ID kept by page name among them).
func unpackInto(st *state.State) func(*state.TrackSketches) {
	return func(t *state.TrackSketches) {
		for i := range t.Len() {
			st.People[t.ID(i)] = t.Person(i)
		}
	}
}

// packedIDs are the IDs of the people t holds.
func packedIDs(t *state.TrackSketches) []string {
	ids := make([]string, t.Len())
	for i := range ids {
		ids[i] = t.ID(i)
	}
	return ids
}

// EnrichedInto reads into st, an apply's partial state, the people of
// the enrich blocks its tracks watch (Enriched) as Read reads them for
// its plan: in sketch with Sketched (the engine reads the people of a
// track's reads whole as each comes, engine.prepareTrack), else whole.
// It reads whole by read (State.ReadRefs: the state then asked the store
// for them) the people it returns the IDs of, then sketch packs the
// others once read has read the rest of the plan's people.
func (r Reads) EnrichedInto(b *state.Base, st *state.State, read func([]string) error) (ids []string, sketch func() error, err error) {
	return r.enrichedOrSketched(b, st, read, nil)
}

// pagedLeads reports whether a lead list of r.EnrichedFrom holds an ID
// kept by page name ("page:"): State.Person follows it to the person
// of that page name among the people st holds, sketches too, so they
// are held as people (unpack).
func (r Reads) pagedLeads(st *state.State) bool {
	for _, addr := range r.EnrichedFrom {
		for _, id := range st.Searches[addr].Leads().All() {
			if strings.HasPrefix(id, state.PagePrefix) {
				return true
			}
		}
	}
	return false
}

// readsProfiles reports whether the plan plans a profile block: a track
// shares its read by page name (track).
func (b *builder) readsProfiles() bool {
	for _, p := range b.cfg.Profiles {
		if b.selected(p.Address) {
			return true
		}
	}
	return false
}
