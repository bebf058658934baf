package plan

import (
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// EnrichStore is what EnrichReadsOf and the plan it reads for ask of a
// store: its indexes, and people by ID (state.Base gives both).
type EnrichStore interface {
	state.EnrichIndex
	// People reads the people of ids that exist, by ID.
	People(ids []string) (map[string]*state.Person, error)
}

// maxPlacesRead is the most places left under the limit for which
// EnrichReadsOf reads the people who take them (placesWalk) rather than
// every person: each is read whole by ID.
var maxPlacesRead = 100_000

// walkChunk is the most people placesWalk asks the store about at once
// (a variable for tests).
var walkChunk = 4096

// placesWalk finds, for collectRead, the people not read who take the
// places e's limit leaves, in the order collect meets people: the store
// says which of the people not read hold an enrichment (SketchedAmong);
// those holding none, or one by another block that e's refresh finds
// stale, take a place, and the first ones, as many as places are left,
// are read whole. The people read (EnrichReadsOf) are counted where they
// are met, as before; those of them who take a place take one of the
// walk's. Once the places are taken, the people not read take none and
// change nothing else of the plan (checkRead).
type placesWalk struct {
	v       *env
	e       *config.Enrich
	sources []source
	places  int // places not taken yet
	// known are the people not read whom the walk asked about: the
	// person read whole when they take a place, nil when they take none
	// (or are no person).
	known map[string]*state.Person
}

// walkPlaces starts the walk of e's places over sources when the limit
// leaves some and the plan was given a store; nil otherwise.
func (v *env) walkPlaces(e *config.Enrich, sources []source) *placesWalk {
	places := e.Limit - v.used(e)
	if v.facts.store == nil || places <= 0 {
		return nil
	}
	v.facts.walked = true
	return &placesWalk{v: v, e: e, sources: sources, places: places, known: map[string]*state.Person{}}
}

// person returns the person at sources[i].ids[j] (id, not read) when
// they take a place and one is left, else nil.
func (w *placesWalk) person(i, j int, id string) *state.Person {
	if w == nil || w.places <= 0 {
		return nil
	}
	if p, ok := w.known[id]; ok {
		return p
	}
	if err := w.ask(i, j); err != nil {
		w.v.facts.fail(err)
		w.places = 0
		return nil
	}
	return w.known[id]
}

// took tells the walk that p, just counted, went to the block's todo: a
// place is taken when p takes one.
func (w *placesWalk) took(p *state.Person) {
	if w != nil && w.v.takesPlace(w.e, p) {
		w.places--
	}
}

// ask asks the store about the people not read from sources[i].ids[j] on
// that the walk has not asked about, up to twice the places left: which
// hold an enrichment, and reads whole the first of those who take a
// place, as many as places are left. The others who would take one are
// left unknown: asked about again if the walk gets to them with a place
// left (one of the first was no person).
func (w *placesWalk) ask(i, j int) error {
	ids := w.unasked(i, j, min(walkChunk, 2*w.places+16))
	sketches, err := w.v.facts.store.SketchedAmong(ids)
	if err != nil {
		return err
	}
	enriched := make(map[string]*state.Person, len(sketches))
	for _, s := range sketches {
		enriched[s.ID] = s
	}
	var takers []string
	for _, id := range ids {
		s := enriched[id]
		switch {
		case s != nil && !(w.v.needsEnrich(w.e, s) && w.v.takesPlace(w.e, s)):
			w.known[id] = nil
		case len(takers) < w.places:
			takers = append(takers, id)
		}
	}
	people, err := w.v.facts.store.People(takers)
	if err != nil {
		return err
	}
	for _, id := range takers {
		w.known[id] = people[id]
	}
	return nil
}

// unasked are up to n IDs of the people not read, from sources[i].ids[j]
// on, in order, each once, that the walk has not asked about.
func (w *placesWalk) unasked(i, j, n int) []string {
	var ids []string
	in := map[string]bool{}
	for ; i < len(w.sources) && len(ids) < n; i, j = i+1, 0 {
		for _, id := range w.sources[i].ids[j:] {
			if len(ids) == n {
				break
			}
			if _, ok := w.known[id]; ok || in[id] || w.v.st.People[id] != nil {
				continue
			}
			in[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}
