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
	// Exist tells which IDs of ids name a person.
	Exist(ids []string) (map[string]bool, error)
	// Absent are the IDs of ids that name no person.
	Absent(ids []string) ([]string, error)
	// CountPeople counts the people (readsMost).
	CountPeople() (int, error)
}

// maxPlacesRead is the most places left under the limit for which
// EnrichReadsOf reads the people who take them (placesWalk) rather than
// every person: each is read whole by ID.
var maxPlacesRead = 100_000

// walkChunk is the most people placesWalk asks the store about at once
// (a variable for tests).
var walkChunk = 4096

// maxCounted is the most people placesWalk.count asks about past the
// places: a bound it cannot tell from fewer needs everyone.
var maxCounted = 400_000

// placesWalk finds, for collectRead, the people not read who take the
// places e's limit leaves, in the order collect meets people: the store
// says which of the people not read hold an enrichment (SketchedAmong);
// those holding none, or one by another block that e's refresh finds
// stale, take a place, and the first ones, as many as places are left,
// are read whole. The people read (EnrichReadsOf) are counted where they
// are met, as before; those of them who take a place take one of the
// walk's. Once the places are taken, the people not read take none; they
// only add to the people to enrich, which bound the block's calls with
// the limit's bound (checkRead). When that sum falls short of the
// limit's bound, the walk counts them on (count, countUnread), at the
// limit too.
type placesWalk struct {
	v       *env
	e       *config.Enrich
	sources []source
	places  int // places not taken yet
	// known are the people not read whom the walk asked about: the
	// person read whole when they take a place, nil when they take none
	// (or are no person); given are those handed to collectRead.
	known map[string]*state.Person
	given map[string]bool
	// counted are the people not read whom count found to enrich, as a
	// set once an apply asks (noPlace).
	counted    []string
	countedSet map[string]bool
	// at is where the last place was taken (sources[at[0]].ids[at[1]]),
	// or where the walk started when the limit leaves none: every person
	// not read before it is known. last is the person who took it (nil:
	// none); leaves says the limit leaves places.
	at     [2]int
	last   *state.Person
	leaves bool
}

// walkPlaces starts the walk of e's places over sources when the plan
// was given a store (nil otherwise); walked says the limit leaves places.
func (v *env) walkPlaces(e *config.Enrich, sources []source) *placesWalk {
	if v.facts.store == nil {
		return nil
	}
	places := max(e.Limit-v.used(e), 0)
	v.facts.walked = v.facts.walked || places > 0
	w := &placesWalk{v: v, e: e, sources: sources, places: places + v.facts.extra[e.Address], leaves: places > 0,
		known: map[string]*state.Person{}, given: map[string]bool{}}
	if v.facts.walks == nil {
		v.facts.walks = map[string]*placesWalk{}
	}
	v.facts.walks[e.Address] = w
	return w
}

// person returns the person at sources[i].ids[j] (id, not read) when
// they take a place and one is left, else nil. Once the plan needs
// everyone, the walk asks about no one more.
func (w *placesWalk) person(i, j int, id string) *state.Person {
	if w == nil || w.places <= 0 || w.v.facts.needsEveryone {
		return nil
	}
	if _, ok := w.known[id]; !ok {
		if err := w.ask(i, j); err != nil {
			w.v.facts.fail(err)
			w.places = 0
			return nil
		}
	}
	if p := w.known[id]; p != nil {
		w.given[id] = true
		return p
	}
	return nil
}

// hand notes that collectRead met id, held elsewhere, as p (heldMet):
// counted where met, unless nil. A nil p (met once e's copies took every
// place, not read) is left for count, which reads them with the people
// held past the places (heldToEnrich). No test tells the two apart: in
// the suite's worlds count never meets a person handed nil.
func (w *placesWalk) hand(id string, p *state.Person) {
	if w != nil && p != nil {
		w.given[id] = true
	}
}

// took tells the walk that p, met at sources[i].ids[j], went to the
// block's todo: a place is taken when p takes one.
func (w *placesWalk) took(p *state.Person, i, j int) {
	if w != nil && w.places > 0 && w.v.takesPlace(w.e, wholeMember(p)) {
		w.places--
		w.at = [2]int{i, j}
		w.last = p
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
		case s != nil && !(w.v.needsEnrich(w.e, s) && w.v.takesPlace(w.e, wholeMember(s))):
			w.known[id] = nil
		case len(takers) < w.places:
			takers = append(takers, id)
		}
	}
	people, err := w.v.facts.readWhole(takers)
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
	return firstIDs(w.sources, i, j, n, func(id string) bool {
		_, ok := w.known[id]
		return ok || w.v.known(id)
	})
}

// firstIDs are up to n IDs of sources from sources[i].ids[j] on, in
// order, each once, but those skip names.
func firstIDs(sources []source, i, j, n int, skip func(id string) bool) []string {
	var ids []string
	in := map[string]bool{}
	for ; i < len(sources) && len(ids) < n; i, j = i+1, 0 {
		for _, id := range sources[i].ids.Tail(j).All() {
			if len(ids) == n {
				break
			}
			if in[id] || skip(id) {
				continue
			}
			in[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

// count counts the people not read who would be to enrich once the
// places are taken (each would take one, and none is left), up to need
// of them: from where the last place was taken, it asks the store about
// the people it does not know yet (countAmong). The people held
// elsewhere not read (reuseFacts.partial) are read whole and asked about
// instead: a copy past the places is no person to enrich
// (heldToEnrich). all says it asked about every one, so that n is their
// number. Past maxCounted people asked about it gives up (n < need), and
// once the plan needs everyone (past maxHeldRead and heldReadMost:
// readAsked).
func (w *placesWalk) count(need int) (n int, all bool) {
	var chunk, held []string
	inHeld := map[string]bool{}
	asked := 0
	flush := func(ids *[]string, among func([]string) ([]string, error)) bool {
		found, err := among(*ids)
		if err != nil {
			w.v.facts.fail(err)
			return false
		}
		w.counted = append(w.counted, found...)
		n, asked, *ids = n+len(found), asked+len(*ids), (*ids)[:0]
		return true
	}
	plain := func() bool { return flush(&chunk, w.countAmong) }
	copies := func() bool {
		return flush(&held, func(ids []string) ([]string, error) { return w.v.heldToEnrich(w.e, ids) })
	}
	for i := w.at[0]; i < len(w.sources); i++ {
		ids := w.sources[i].ids
		if i == w.at[0] {
			ids = ids.Tail(w.at[1])
		}
		for _, id := range ids.All() {
			if w.v.facts.needsEveryone || n >= need || asked >= maxCounted {
				return n, false
			}
			switch isHeld, _ := w.v.heldUnread().heldRead(id); {
			case w.v.known(id) || w.given[id]:
				continue // counted where met (given: also heldMet's, hand)
			case isHeld:
				if !inHeld[id] {
					inHeld[id] = true
					if held = append(held, id); len(held) == walkChunk && !copies() {
						return 0, false
					}
				}
				continue
			}
			switch p, ok := w.known[id]; {
			case !ok:
				w.known[id] = nil // asked about once
				chunk = append(chunk, id)
				if len(chunk) == walkChunk && !plain() {
					return 0, false
				}
			case p != nil && !w.given[id]:
				w.given[id] = true // read whole for a place, met with none left
				w.counted = append(w.counted, id)
				n++
			}
		}
	}
	if len(chunk) > 0 && !plain() || len(held) > 0 && !copies() {
		return 0, false
	}
	return n, true
}

// countAmong returns the people of ids (not read) who would take a place:
// holding no enrichment (and a person), or one by another block that e's
// refresh finds stale.
func (w *placesWalk) countAmong(ids []string) ([]string, error) {
	sketches, err := w.v.facts.store.SketchedAmong(ids)
	if err != nil {
		return nil, err
	}
	var found []string
	enriched := make(map[string]bool, len(sketches))
	for _, s := range sketches {
		enriched[s.ID] = true
		if w.v.needsEnrich(w.e, s) && w.v.takesPlace(w.e, wholeMember(s)) {
			found = append(found, s.ID)
		}
	}
	var plain []string
	for _, id := range ids {
		if !enriched[id] {
			plain = append(plain, id)
		}
	}
	exist, err := w.v.facts.store.Exist(plain)
	for _, id := range plain {
		if exist[id] {
			found = append(found, id)
		}
	}
	return found, err
}
