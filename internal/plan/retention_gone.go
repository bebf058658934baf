package plan

import (
	"hash/maphash"

	"github.com/leadsync/leadsync/internal/state"
)

// keptGone are the people leadsync { retention } removes that a plan read
// in the kept form (Expired.ReadKept), held by their place in the IDs
// listed (Expired.IDs), not as people of the state: a state.Person is 352
// bytes, and 1,000,000 of them, with their places in State.People and
// env.gone, held most of such a plan's memory (a map by ID still held 54
// MB). The plan asks of them only who they are (env.known, skipGone),
// and what they count in: their enrichment's block, copy and time
// (lessGone, goneEnrichedBy), one for all alike.
type keptGone struct {
	ids state.IDList // sorted: Expired.IDs
	// slots is an open-addressed index of the people noted: one more
	// than their place in ids, 0 for a free slot; twice as many slots as
	// ids, at least, a power of two.
	slots []uint32
	seed  maphash.Seed
	// kind is, by place in ids, 0 for someone not noted, 1 for someone
	// holding no enrichment, else 2 more than the place of their
	// enrichment in kinds.
	kind  []int32
	kinds []keptEnrichment
	alike []int // how many hold each of kinds
	of    map[keptEnrichment]int32
	n     int
}

// newKeptGone is an empty keptGone of the people of ids, sorted.
func newKeptGone(ids state.IDList) *keptGone {
	n := 1
	for n < 2*ids.Len() {
		n *= 2
	}
	return &keptGone{ids: ids, slots: make([]uint32, n), seed: maphash.MakeSeed(), kind: make([]int32, ids.Len()), of: map[keptEnrichment]int32{}}
}

// add notes k, who goes, at their place i in ids.
func (g *keptGone) add(i int, k state.KeptPerson) {
	if g.kind[i] != 0 {
		return
	}
	g.kind[i] = 1
	if k.Enriched {
		key := keptEnrichment{k.By, k.CopiedBy, k.EnrichedAt}
		j, ok := g.of[key]
		if !ok {
			j = int32(len(g.kinds))
			g.of[key] = j
			g.kinds = append(g.kinds, key)
			g.alike = append(g.alike, 0)
		}
		g.alike[j]++
		g.kind[i] = j + 2
	}
	mask := uint64(len(g.slots) - 1)
	for h := maphash.String(g.seed, g.ids.At(i)) & mask; ; h = (h + 1) & mask {
		if g.slots[h] == 0 {
			g.slots[h] = uint32(i) + 1
			break
		}
	}
	g.n++
}

// moved is g as the moves of m leave it: each kind's block and copying
// block under its new address, as Build moves the people it reads (the
// store keeps them under the old ones). A copy with kinds of its own,
// since Build may plan twice over one Expired; not to be added to.
func (g *keptGone) moved(m *Moving) *keptGone {
	if g == nil || m == nil || len(m.to) == 0 {
		return g
	}
	c := *g
	c.of = nil
	c.kinds = make([]keptEnrichment, len(g.kinds))
	for j, k := range g.kinds {
		if to := m.to[k.by]; to != "" {
			k.by = to
		}
		if to := m.to[k.copiedBy]; to != "" {
			k.copiedBy = to
		}
		c.kinds[j] = k
	}
	return &c
}

// at is the place in ids of the person of id when noted, else -1.
func (g *keptGone) at(id string) int {
	if g == nil || g.n == 0 {
		return -1
	}
	mask := uint64(len(g.slots) - 1)
	for h := maphash.String(g.seed, id) & mask; ; h = (h + 1) & mask {
		switch i := g.slots[h]; {
		case i == 0:
			return -1
		case g.ids.At(int(i-1)) == id:
			return int(i - 1)
		}
	}
}

// keptAt reports whether the person at place i of ids is noted.
func (g *keptGone) keptAt(i int) bool { return g != nil && g.kind[i] != 0 }

// has reports whether the person of id goes, read in the kept form.
func (g *keptGone) has(id string) bool { return g.at(id) >= 0 }

// len is how many go.
func (g *keptGone) len() int {
	if g == nil {
		return 0
	}
	return g.n
}

// each calls fn with each kind of enrichment those noted hold, and how
// many hold it.
func (g *keptGone) each(fn func(e keptEnrichment, n int)) {
	if g == nil {
		return
	}
	for j, e := range g.kinds {
		fn(e, g.alike[j])
	}
}

// person is the kept form of the person of id as a state.Person of its
// own (ID and enrichment), nil for someone not noted: for the rare
// question a plan asks of a person (a claim's place), not to be held.
func (g *keptGone) person(id string) *state.Person {
	i := g.at(id)
	if i < 0 {
		return nil
	}
	p := &state.Person{ID: id}
	if k := g.kind[i]; k > 1 {
		e := g.kinds[k-2]
		p.Enrichment = &state.Enrichment{By: e.by, CopiedBy: e.copiedBy, EnrichedAt: e.at}
	}
	return p
}

// keptOf is the kept form of p, read whole.
func keptOf(p *state.Person) state.KeptPerson {
	k := state.KeptPerson{ID: p.ID, LastSeen: p.LastSeen}
	if e := p.Enrichment; e != nil {
		k.Enriched, k.By, k.CopiedBy, k.EnrichedAt = true, e.By, e.CopiedBy, e.EnrichedAt
	}
	return k
}

// anyGone reports whether the plan removes anyone first (retention).
func (v *env) anyGone() bool { return len(v.gone) > 0 || v.goneKept.len() > 0 }

// known reports whether the plan knows the person of id: read (in
// State.People, or packed: sketchAt), or read in the kept form and gone
// (keptGone). The people not known are those the store's counts answer
// for.
func (v *env) known(id string) bool {
	return v.st.People[id] != nil || v.sketchAt(id) >= 0 || v.goneKept.has(id)
}
