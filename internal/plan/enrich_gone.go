package plan

import (
	"maps"

	"github.com/leadsync/leadsync/internal/state"
)

// The people leadsync { retention } removes in a plan of enrich blocks
// planned from the store's counts (EnrichFacts). The store counts them
// among each block's enrichments (owned and aged, by Enrichment.By),
// copies (by CopiedBy) and members (the IDs of its sources' lead lists),
// where the plan of the state read whole leaves them out (env.gone):
// findOwned skips them, erasedBy counts their enrichments instead, and
// collect meets them nowhere. They are read whole (ReadsOf names
// Options.Expired), so the plan takes them out of the counts itself:
// lessGone for the enrichments, goneIn for the members, and the
// collections skip them where they meet them.

// lessGone returns c, the store's counts of block addr, without the
// people the plan removes first (env.gone): their enrichments made by
// addr, at every age asked (at or before now less the age, as the store
// counts them), and their copies made by addr. Without anyone removed,
// c itself.
func (v *env) lessGone(addr string, c *enrichCounts) *enrichCounts {
	if !v.anyGone() {
		return c
	}
	if g := v.goneCounts[addr]; g != nil {
		return g
	}
	g := &enrichCounts{owned: c.owned, copies: c.copies, aged: maps.Clone(c.aged)}
	less := func(e keptEnrichment, n int) {
		if e.by == addr {
			g.owned -= n
			for d := range g.aged {
				if !e.at.After(v.now.Add(-d)) {
					g.aged[d] -= n
				}
			}
		}
		if e.copiedBy == addr {
			g.copies -= n
		}
	}
	for p := range v.gone {
		if e := p.Enrichment; e != nil && !v.goneKept.has(p.ID) {
			less(keptEnrichment{e.By, e.CopiedBy, e.EnrichedAt}, 1)
		}
	}
	v.goneKept.each(less)
	if v.goneCounts == nil {
		v.goneCounts = map[string]*enrichCounts{}
	}
	v.goneCounts[addr] = g
	return g
}

// goneIn counts the distinct IDs of sources that name someone the plan
// removes first (env.gone): distinctIDs counts them among the members,
// which the plan of the state read whole leaves them out of.
func (v *env) goneIn(sources []source) int {
	if !v.anyGone() {
		return 0
	}
	var met goneMet
	for _, src := range sources {
		for _, id := range src.ids.All() {
			v.skipGone(v.st.People[id], id, &met)
		}
	}
	return met.len()
}

// skipGone reports whether p, a person read (met at id in a source), or
// nil for one read in the kept form (keptGone), is one the plan removes
// first (env.gone), whom no enrich block counts:
// id is then noted in met, the IDs the members' count leaves out.
func (v *env) skipGone(p *state.Person, id string, met *goneMet) bool {
	if p != nil {
		if !v.gone[p] {
			return false
		}
		met.whole(id)
		return true
	}
	i := v.goneKept.at(id)
	if i < 0 {
		return false
	}
	met.kept(i, v.goneKept.ids.Len())
	return true
}

// goneMet are the distinct IDs of people the plan removes first that a
// walk of sources met (skipGone): those read in the kept form as a bit
// at their place in its IDs, the few read whole by ID. A map of
// 1,000,000 IDs made 50 MB of garbage at the end of a plan of retention.
type goneMet struct {
	bits []uint64
	ids  map[string]bool
	n    int
}

// kept notes the person at place i of the n IDs read in the kept form.
func (m *goneMet) kept(i, n int) {
	if m.bits == nil {
		m.bits = make([]uint64, (n+63)/64)
	}
	if bit := uint64(1) << (i % 64); m.bits[i/64]&bit == 0 {
		m.bits[i/64] |= bit
		m.n++
	}
}

// whole notes id, of a person read whole.
func (m *goneMet) whole(id string) {
	if m.ids == nil {
		m.ids = map[string]bool{}
	}
	if !m.ids[id] {
		m.ids[id] = true
		m.n++
	}
}

// len is how many distinct IDs m noted.
func (m *goneMet) len() int { return m.n }

// goneEnrichedBy counts the enrichments made by addr of the people the
// plan removes first (env.gone), counted for every block at the first
// question: erasedBy asks it for each block, often.
func (v *env) goneEnrichedBy(addr string) int {
	if !v.anyGone() {
		return 0
	}
	if v.goneBy == nil {
		v.goneBy = map[string]int{}
		for p := range v.gone {
			if p.Enrichment != nil && !v.goneKept.has(p.ID) {
				v.goneBy[p.Enrichment.By]++
			}
		}
		v.goneKept.each(func(e keptEnrichment, n int) { v.goneBy[e.by] += n })
	}
	return v.goneBy[addr]
}
