package plan

import (
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// member is a person of a block's people to enrich (blockPeople.todo)
// and of the claims (claimRounds): p, held as a Person, or, p nil, the
// census sketch of index k (EnrichFacts.packed). A block's people to
// enrich hold 76,400 sketches at 3,000,000 people: as Persons, 50 MB.
type member struct {
	p *state.Person
	k int32
}

// wholeMember is the member of a person held as a Person.
func wholeMember(p *state.Person) member { return member{p: p, k: -1} }

// held is m as a block's people to enrich hold it: a census sketch by
// its index alone.
func (m member) held() member {
	if m.k >= 0 {
		return member{k: m.k}
	}
	return m
}

// memberID is the ID of m's person.
func (v *env) memberID(m member) string {
	if m.p != nil {
		return m.p.ID
	}
	return v.facts.packed.ID(int(m.k))
}

// memberIDs are the IDs of the persons of ms.
func (v *env) memberIDs(ms []member) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = v.memberID(m)
	}
	return out
}

// memberEnrichment are the block m's enrichment is by and the block that
// copied it (Enrichment.CopiedBy: never a sketch's); ok is false when m
// holds none.
func (v *env) memberEnrichment(m member) (by, copied string, ok bool) {
	switch {
	case m.p == nil:
		return v.facts.packed.By(int(m.k)), "", true
	case m.p.Enrichment == nil:
		return "", "", false
	}
	return m.p.Enrichment.By, m.p.Enrichment.CopiedBy, true
}

// sketchAt is the index of the census sketch of id (EnrichFacts.packed),
// -1 when there is none. The plan asks it of every member not read (3,000,000
// at most): by a map of the sketches' IDs, not a binary search each.
func (v *env) sketchAt(id string) int32 {
	f := v.facts
	if f == nil || f.packed == nil {
		return -1
	}
	if f.packedAt == nil {
		f.packedAt = make(map[string]int32, f.packed.Len())
		for i := range f.packed.Len() {
			f.packedAt[f.packed.ID(i)] = int32(i)
		}
	}
	if k, ok := f.packedAt[id]; ok {
		return k
	}
	return -1
}

// unreadSketchAt is sketchAt of id when p, the Person of id read, is nil;
// -1 otherwise.
func (v *env) unreadSketchAt(p *state.Person, id string) int32 {
	if p != nil {
		return -1
	}
	return v.sketchAt(id)
}

// sketchMet is the member of the census sketch k met by a block: its
// Person made anew, or the one a list other than the people to enrich
// holds (keepSketch), so that the lists tell it apart by pointer as they
// do the people held whole.
func (v *env) sketchMet(k int32) member {
	if p := v.sketchHeld[k]; p != nil {
		return member{p: p, k: k}
	}
	return member{p: v.facts.packed.Person(int(k)), k: k}
}

// keepSketch keeps m's Person, of a census sketch, when the block that
// met it did not take it to its people to enrich (todo: the length of
// bp.todo before): another list of bp may hold it.
func (v *env) keepSketch(m member, bp *blockPeople, todo int) {
	if m.k < 0 || len(bp.todo) > todo {
		return
	}
	if v.sketchHeld == nil {
		v.sketchHeld = map[int32]*state.Person{}
	}
	v.sketchHeld[m.k] = m.p
}

// countSketch counts the census sketch k, which block e meets for the
// first time through the source at addr, into bp as count does, and
// returns its Person.
func (v *env) countSketch(bp *blockPeople, e *config.Enrich, k int32, addr string, where bool) (*state.Person, error) {
	m := v.sketchMet(k)
	l := v.look(e, m.p)
	l.k = k
	todo := len(bp.todo)
	if err := v.count(bp, e, l, addr, where); err != nil {
		return nil, err
	}
	v.keepSketch(m, bp, todo)
	return m.p, nil
}

// countSketchOnce is countSketch of a census sketch k not in seen (the
// IDs of the members counted), which it adds to seen.
func (v *env) countSketchOnce(bp *blockPeople, e *config.Enrich, seen map[string]struct{}, k int32, addr string, where bool) error {
	id := v.facts.packed.ID(int(k))
	if _, dup := seen[id]; dup {
		return nil
	}
	seen[id] = struct{}{}
	_, err := v.countSketch(bp, e, k, addr, where)
	return err
}
