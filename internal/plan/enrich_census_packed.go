package plan

import (
	"strings"
	"time"

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
// sketches: the store reads them so (state.CensusSketcher), and nothing
// the plan does asks more of them than the collection of the blocks'
// people. So no refresh_on (the owned people and the changes are read
// by Person), no import or profile block, no moves or other workspaces
// (each finds people in State.People by ID). These may stand beside
// them:
//   - exclude blocks: a sketch teaches no company domain, and every
//     person a block may name is read whole (excludedReads), so taken out
//     of the sketches (keepUnread);
//   - a track: its people are read whole or in its sketch (trackReads),
//     found so first (env.trackee);
//   - retention: a sketch of someone who goes is known (env.known) and
//     skipped as met (skipGone), read whole or in the kept form.
func packSketches(cfg *config.Config, opts Options, ix EnrichStore) bool {
	_, reads := ix.(state.CensusSketcher)
	return reads && !anyRefreshOn(cfg) &&
		len(cfg.Imports)+len(cfg.Profiles) == 0 &&
		opts.Moved == nil && opts.Reuse == nil
}

// sketchAsk names the people of block by's enrichments up to before
// (EnrichIndex.Sketched).
type sketchAsk struct {
	by     string
	before time.Time
}

// sketch reads in sketch the people of block by's enrichments up to
// before: as Persons, or, when f packs them, later, packed (readPacked).
func (f *EnrichFacts) sketch(by string, before time.Time) error {
	if f.packs {
		f.asks = append(f.asks, sketchAsk{by, before})
		return nil
	}
	found, err := f.store.Sketched(by, before)
	f.sketches = append(f.sketches, found...)
	return err
}

// unpack reads the people f.asks name as Persons instead (a where that
// reads lead otherwise, or pages: they are read whole).
func (f *EnrichFacts) unpack() error {
	asks := f.asks
	f.asks, f.packs = nil, false
	for _, a := range asks {
		if err := f.sketch(a.by, a.before); err != nil {
			return err
		}
	}
	return nil
}

// readPacked reads packed (f.packed) the people f.asks name, with the
// lead fields of f.leadKeys, in one join each (state.CensusSketcher).
// Without lead fields, the enrichments alone say all a sketch holds: the
// store sketches them (Sketched), without the join of the people (0.65
// s of 3,000,000 people's pages at 60,000 sketches). Too many to pack,
// they are read as Persons, given those fields.
func (f *EnrichFacts) readPacked() error {
	if len(f.asks) == 0 {
		return nil
	}
	k, err := state.NewCensusSketchBuilder(f.leadKeys)
	if err != nil {
		return err
	}
	each := f.store.(state.CensusSketcher).CensusSketchEach // packSketches
	if len(f.leadKeys) == 0 {
		each = f.sketchEach
	}
	for _, a := range f.asks {
		if err := each(a.by, a.before, f.leadKeys, k.Add); err != nil {
			return err
		}
	}
	if f.packed = k.Done(); f.packed != nil {
		return nil
	}
	if err := f.unpack(); err != nil || !f.leadSketches || len(f.leadKeys) == 0 {
		return err
	}
	return f.store.(leadSketcher).SketchLeads(f.sketches, f.leadKeys)
}

// keepUnread takes out of f.packed the people st holds read whole, and
// those kept by page name ("page:"), held in st as Persons: State.Person
// finds them by page name.
func (f *EnrichFacts) keepUnread(st *state.State) {
	t := f.packed
	drop := func(i int) bool {
		id := t.ID(i)
		return st.People[id] != nil || strings.HasPrefix(id, state.PagePrefix)
	}
	n := 0
	for i := range t.Len() {
		if drop(i) {
			n++
		}
	}
	if n == 0 {
		return
	}
	k, _ := state.NewCensusSketchBuilder(t.Keys()) // t's keys: valid
	for i := range t.Len() {
		switch {
		case !drop(i):
			_ = k.Add(t.Sketch(i)) // t's keys: as many fields
		case st.People[t.ID(i)] == nil:
			st.People[t.ID(i)] = t.Person(i)
		}
	}
	f.packed, f.packedAt = k.Done(), nil // no more than t held
}

// sketchEach is CensusSketchEach without lead fields, from the people
// the store sketches (Sketched).
func (f *EnrichFacts) sketchEach(by string, before time.Time, _ []string, fn func(state.CensusSketch) error) error {
	ps, err := f.store.Sketched(by, before)
	if err != nil {
		return err
	}
	for _, p := range ps {
		s, err := state.CensusSketchOf(p, nil)
		if err == nil {
			err = fn(s)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
