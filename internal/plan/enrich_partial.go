package plan

import (
	"slices"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// An apply of a plan EnrichReadsOf answers runs on a partial state
// (state.Base.Writable): it reads whole the people the plan reads in
// sketch (SketchedIDs), since it may enrich and write them, and those
// the plan's walk found for the places the limit leaves (WalkedIDs). The
// engine's choice of the people to enrich (Candidates.Claimed) counts
// each block's places from the partial state's counts (partialFacts),
// which follow every enrichment folded in; the people not read take no
// place.

// SketchedIDs are the IDs of the people f reads in sketch (Fill): the
// people of the block's stale enrichments and of imported e-mails. An
// apply reads them whole instead (it may enrich them, and a partial state
// writes only people it read).
func (f *EnrichFacts) SketchedIDs() []string {
	if f == nil {
		return nil
	}
	ids := make([]string, len(f.sketches), len(f.sketches)+f.packed.Len())
	for i, p := range f.sketches {
		ids[i] = p.ID
	}
	for i := range f.packed.Len() {
		ids = append(ids, f.packed.ID(i))
	}
	return ids
}

// FillWhole reads whole into st the people f reads in sketch
// (SketchedIDs), then fills st with the rest (Fill), and lets f's
// sketches go: st holds each of them now, read whole or, when the store
// no longer gives one, as its sketch. At 3,000,000 people beside a track
// and refresh_on, the sketches kept beside the people read whole held
// 48 MB until the first call.
func (f *EnrichFacts) FillWhole(st *state.State) error {
	if err := st.ReadPeople(f.SketchedIDs()); err != nil {
		return err
	}
	f.Fill(st)
	f.sketches = nil
	return nil
}

// WalkedIDs are the IDs of the people not read whom the plan Build made
// with f read whole: for the places the block's limit leaves
// (placesWalk), to enrich from the census (collectCensus), or as people
// held elsewhere met before the copies took the places (heldMet). An
// apply reads them into its partial state, so that the engine's passes,
// which count only the people read, find them where the plan did. The
// copies would read the people held met too (readHeldMet), but a page at
// a time, each page another collect of the block.
func (f *EnrichFacts) WalkedIDs() []string {
	if f == nil {
		return nil
	}
	var ids []string
	for _, w := range f.walks {
		for id, p := range w.known {
			if p != nil {
				ids = append(ids, id)
			}
		}
	}
	for id := range f.censusRead {
		ids = append(ids, id)
	}
	if f.reuse != nil {
		for id, p := range f.reuse.met {
			if p != nil {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// partialFacts are the counts of every enrich block of cfg in st, a
// partial state (nil for a state read whole): the enrichments each block
// made and copied, read people counted as they are now
// (state.EnrichedCounts). Candidates gives them to each pass of the
// engine, as EnrichReadsOf's are given to the plan: the people not read
// take no place (the limit leaves none: checkRead) and count only as
// members.
func partialFacts(cfg *config.Config, st *state.State) *EnrichFacts {
	made, copied, ok := st.EnrichedCounts()
	if !ok {
		return nil
	}
	f := &EnrichFacts{blocks: make(map[string]*enrichCounts, len(cfg.Enriches))}
	for _, e := range cfg.Enriches {
		f.blocks[e.Address] = &enrichCounts{owned: made[e.Address], copies: copied[e.Address], aged: map[time.Duration]int{}}
	}
	return f
}
