package plan

import (
	"errors"
	"slices"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// The census: the plan of an enrich block whose limit is a safety cap
// (more places left than maxPlacesRead), or that the places walk cannot
// decide (nothing to enrich: its text counts every member), asks the
// store for every enrichment narrowly (state.EnrichmentLister: ID, block,
// time) instead of every person. It tells the members not read apart in
// memory, in the plan's order: one holding an enrichment fresh for the
// block is counted as enriched, and only the others, the candidates (no
// enrichment, or a stale one), are read whole. The plan then knows every
// member as the whole state's plan does: the people read (EnrichReadsOf)
// where they are met, the candidates as read, the others counted.

// maxCensusRead is the most candidates the census reads whole (a
// variable for tests; none by default). The census reads whole no more
// than three quarters of its sources' people either: a person read by ID
// costs more than one of a read of everyone (1,656,000 candidates of
// 3,000,000 people: 15.0 s and 1.78 GB, against 19.6 s and 3.1 GB), so
// past that share the plan needs everyone.
var maxCensusRead = 1 << 62

// censusAsk is how many IDs takeCensus asks the store for at once.
var censusAsk = 1 << 16

// takeCensus reads the IDs of every enrichment from l, in pages, and
// records which of the members of sources hold one; then, with a
// refresh, which of those another block (or an import, or a copy) made
// before the refresh (store.Sketched: e's own are read, by enrichReads):
// those are stale.
func takeCensus(store state.EnrichIndex, l state.EnrichmentLister, e *config.Enrich, now time.Time, sources []source) (*enrichCensus, error) {
	c, ok := newEnrichCensus(sources)
	if !ok {
		return nil, errCensusTooLarge
	}
	var ids []string
	for after := ""; ; {
		var err error
		if ids, err = enrichedAfter(l, ids[:0], after); err != nil {
			return nil, err
		}
		for _, id := range ids {
			if id <= after {
				return nil, errCensusTooLarge
			}
			c.enriched(id)
			after = id
		}
		if len(ids) < censusAsk {
			break
		}
	}
	if e.Refresh <= 0 {
		return c, nil
	}
	addrs, err := store.Enrichers()
	if err != nil {
		return nil, err
	}
	for _, by := range addrs {
		if by == e.Address {
			continue
		}
		stale, err := staleIDs(store, by, now.Add(-e.Refresh))
		if err != nil {
			return nil, err
		}
		for _, id := range stale {
			c.stale(id)
		}
	}
	return c, nil
}

// staleIDs are the IDs of the people of store.Sketched(by, before), from
// the store's narrow list when it has one (state.EnrichedBeforeLister).
func staleIDs(store state.EnrichIndex, by string, before time.Time) ([]string, error) {
	if l, ok := store.(state.EnrichedBeforeLister); ok {
		return l.EnrichedIDsBefore(by, before)
	}
	ps, err := store.Sketched(by, before)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return ids, nil
}

// enrichedAfter is the page of l's enrichments after the ID after, in
// dst when l is a state.EnrichmentPager (a page of 65,536 IDs is 1 MB of
// slice: 48 MB of garbage at 3,000,000 enrichments, else).
func enrichedAfter(l state.EnrichmentLister, dst []string, after string) ([]string, error) {
	if p, ok := l.(state.EnrichmentPager); ok {
		return p.AppendEnrichedAfter(dst, after, censusAsk)
	}
	return l.EnrichedAfter(after, censusAsk)
}

// errCensusTooLarge: more members than the census holds, or IDs the
// store gave out of order.
var errCensusTooLarge = errors.New("the enrichments do not fit the census")

// collectCensus is collectRead from the census: every member not read
// is either a candidate, read whole (censusRead), or holds an enrichment
// fresh for e, counted as collectEach counts them (enriched), once.
func (v *env) collectCensus(e *config.Enrich, sources []source, where bool) (blockPeople, error) {
	var bp blockPeople
	v.censusGC(e, sources)
	c, whole, pages, err := v.censusRead(e, sources)
	if err != nil {
		v.facts.fail(err)
		return bp, nil
	}
	if c == nil {
		v.facts.needsEveryone = true
		v.facts.undecide(e.Address)
		return bp, nil
	}
	v.facts.readByCensus(whole)
	if v.heldCensused(e, whole); v.facts.needsEveryone {
		// A shortcut: that plan is made again over every person.
		return bp, nil
	}
	// By ID: a person made from a sketch when met is a new value each time.
	seen := make(map[string]struct{}, len(v.st.People)+len(whole))
	counted := make([]bool, c.n)
	var gone goneMet // the IDs of people the plan removes first
	k := -1
	for _, src := range sources {
		for _, id := range src.ids.All() {
			k++
			p := v.st.People[id]
			if v.skipGone(p, id, &gone) {
				continue
			}
			if p == nil {
				p = whole[id]
			}
			if s := v.sketchAt(id); p == nil && s >= 0 {
				if err := v.countSketchOnce(&bp, e, seen, s, src.addr, where); err != nil {
					return bp, err
				}
				continue
			}
			paged := false
			if p == nil && pages != nil {
				if p, err = pages.at(c, k, id); err != nil {
					v.facts.fail(err)
					return bp, nil
				}
				paged = p != nil
			}
			if p == nil {
				v.countUnread(&bp, e, c, counted, k, id)
				continue
			}
			if paged {
				// Met once (the census' members): no need of seen.
				todo := len(bp.todo)
				if err := v.count(&bp, e, v.look(e, p), src.addr, where); err != nil {
					return bp, err
				}
				pages.took(&bp, p, todo, k, id)
				continue
			}
			if err := v.countOnce(&bp, e, seen, p, src.addr, where); err != nil {
				return bp, err
			}
		}
	}
	if pages != nil {
		v.facts.countedBy(e, pages.counted)
	}
	bp.members = c.n - len(c.dups) - gone.len() - v.facts.nobody[e.Address]
	if v.keepMet {
		bp.sources = sources
	}
	if ids, ok := v.facts.counted[e.Address]; ok {
		bp.unread, bp.unreadAll = ids.len(), true
	}
	if len(e.RefreshOn) > 0 {
		v.countFormerOn(&bp, e, sources)
	}
	return bp, nil
}

// countOnce counts p, whom block e meets through the source at addr, into
// bp as count does, unless seen holds p's ID (the members counted so
// far), to which it adds it.
func (v *env) countOnce(bp *blockPeople, e *config.Enrich, seen map[string]struct{}, p *state.Person, addr string, where bool) error {
	if _, dup := seen[p.ID]; dup {
		return nil
	}
	seen[p.ID] = struct{}{}
	return v.count(bp, e, v.look(e, p), addr, where)
}

// countUnread counts the census member k not read (id) once: enriched
// and fresh, or no person (a candidate not read).
func (v *env) countUnread(bp *blockPeople, e *config.Enrich, c *enrichCensus, counted []bool, k int, id string) {
	if i := c.member(k); !counted[i] && !c.candidate(i) {
		counted[i] = true
		bp.enriched++
		if len(e.RefreshOn) > 0 {
			v.unreadFresh(bp, e, id) // a read or a search may show them changed
		}
	}
}

// readByCensus records the people to enrich the census read whole
// (censusRead: WalkedIDs).
func (f *EnrichFacts) readByCensus(whole map[string]*state.Person) {
	if f.censusRead == nil {
		f.censusRead = map[string]*state.Person{}
	}
	for id, p := range whole {
		f.censusRead[id] = p
	}
}

// censusRead takes the census and reads whole the candidates among the
// members not read, by ID; a nil census: too many of them to read so
// (maxCensusRead). A block that can take no place (countOnly) counts
// them instead; with a where, collectCensus reads them in pages as it
// meets them.
func (v *env) censusRead(e *config.Enrich, sources []source) (*enrichCensus, map[string]*state.Person, *candidatePages, error) {
	l, ok := v.facts.store.(state.EnrichmentLister)
	if !ok {
		return nil, nil, nil, nil
	}
	c, err := takeCensus(v.facts.store, l, e, v.now, sources)
	if err != nil {
		return nil, nil, nil, err
	}
	most := 0
	for _, src := range sources {
		most += src.ids.Len()
	}
	most = min(most*3/4, maxCensusRead)
	todo := c.placed()
	k := -1
	for _, src := range sources {
		for _, id := range src.ids.All() {
			k++
			// A member met again (member(k) < k) is asked for once.
			if i := c.member(k); i < k || v.known(id) || !c.candidate(i) {
				continue
			}
			if todo.len() == most {
				return nil, nil, nil, nil
			}
			todo.add(k)
		}
	}
	switch {
	case v.countOnly(e) && e.Where != nil:
		pages := &candidatePages{f: v.facts, ids: todo, page: map[string]*state.Person{}, counted: c.placed()}
		if v.heldUnread().leftUnread() {
			// A copy past the places is counted as none to enrich.
			pages.ask = func(page map[string]*state.Person) error { return v.askAbout(e, page) }
		}
		return c, nil, pages, nil
	case v.countOnly(e):
		return c, nil, nil, v.facts.countCandidates(e, todo)
	}
	whole, err := v.facts.readWhole(slices.Collect(todo.all))
	return c, whole, nil, err
}
