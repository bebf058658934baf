package plan

import (
	"errors"
	"hash/maphash"
	"math"
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

// enrichCensus is every enrichment of a store as the plan of one block e
// needs it: its person's ID and whether e's refresh finds it stale, in
// pages of censusPage (a list grown by append to millions would copy
// itself into hundreds of MB of garbage on the way), found by ID through
// an open-addressing table of their indexes (slots). At 3,000,000
// enrichments: about 90 MB.
type enrichCensus struct {
	pages []*censusPage
	n     int
	slots []int32 // index+1 of an enrichment, 0: none; a power of two long
	seed  maphash.Seed
}

// censusPage holds censusPageSize enrichments: their IDs packed in ids,
// the one of j ending at ends[j].
type censusPage struct {
	ids   []byte
	ends  []uint32
	stale []bool
}

const censusPageSize = 1 << 16

// censusAsk is how many IDs takeCensus asks the store for at once.
var censusAsk = 1 << 16

// takeCensus reads the IDs of every enrichment from l, in pages, and
// then, with a refresh, which of them another block (or an import, or a
// copy) made before the refresh (store.Sketched: e's own are read, by
// enrichReads): those are stale.
func takeCensus(store state.EnrichIndex, l state.EnrichmentLister, e *config.Enrich, now time.Time) (*enrichCensus, error) {
	c := &enrichCensus{seed: maphash.MakeSeed()}
	for after := ""; ; {
		ids, err := l.EnrichedAfter(after, censusAsk)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if id <= after || c.n == math.MaxInt32 {
				return nil, errCensusTooLarge
			}
			c.add(id)
			after = id
		}
		if len(ids) < censusAsk {
			break
		}
	}
	size := 1
	for size < 2*c.n {
		size *= 2
	}
	c.slots = make([]int32, size)
	for i := range c.n {
		h := int(maphash.Bytes(c.seed, c.id(i))) & (len(c.slots) - 1)
		for c.slots[h] != 0 {
			h = (h + 1) & (len(c.slots) - 1)
		}
		c.slots[h] = int32(i + 1)
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
		stale, err := store.Sketched(by, now.Add(-e.Refresh))
		if err != nil {
			return nil, err
		}
		for _, p := range stale {
			if i := c.lookUp(p.ID); i >= 0 {
				c.pages[i/censusPageSize].stale[i%censusPageSize] = true
			}
		}
	}
	return c, nil
}

// add adds the ID of an enrichment, not stale.
func (c *enrichCensus) add(id string) {
	if c.n%censusPageSize == 0 {
		c.pages = append(c.pages, &censusPage{ids: make([]byte, 0, 16*censusPageSize),
			ends: make([]uint32, 0, censusPageSize), stale: make([]bool, 0, censusPageSize)})
	}
	page := c.pages[len(c.pages)-1]
	page.ids = append(page.ids, id...)
	page.ends = append(page.ends, uint32(len(page.ids)))
	page.stale = append(page.stale, false)
	c.n++
}

// errCensusTooLarge: more enrichments than the census holds, or IDs the
// store gave out of order.
var errCensusTooLarge = errors.New("the enrichments do not fit the census")

// id is the person's ID of enrichment i.
func (c *enrichCensus) id(i int) []byte {
	p, j := c.pages[i/censusPageSize], i%censusPageSize
	start := uint32(0)
	if j > 0 {
		start = p.ends[j-1]
	}
	return p.ids[start:p.ends[j]]
}

// lookUp returns the index of id's enrichment, -1 for none.
func (c *enrichCensus) lookUp(id string) int {
	if c.n == 0 {
		return -1
	}
	for h := int(maphash.String(c.seed, id)) & (len(c.slots) - 1); c.slots[h] != 0; h = (h + 1) & (len(c.slots) - 1) {
		if i := int(c.slots[h] - 1); string(c.id(i)) == id {
			return i
		}
	}
	return -1
}

// candidate reports whether a member not read, whose enrichment is the
// census' i (-1: none), is to be enriched by the census' block: none, or
// one its refresh finds stale. A member not read has a page name, is on
// the network, holds no enrichment of an unknown outcome, no copy of the
// block's, no import's e-mail and, with a refresh, no enrichment of the
// block's that is stale (enrichReads reads those): what else collectEach
// knows of them changes nothing.
func (c *enrichCensus) candidate(i int) bool {
	return i < 0 || c.pages[i/censusPageSize].stale[i%censusPageSize]
}

// collectCensus is collectRead from the census: every member not read
// is either a candidate, read whole (censusRead), or holds an enrichment
// fresh for e, counted as collectEach counts them (enriched), once.
func (v *env) collectCensus(e *config.Enrich, sources []source, where bool) (blockPeople, error) {
	var bp blockPeople
	c, whole, err := v.censusRead(e, sources)
	if err != nil {
		v.facts.fail(err)
		return bp, nil
	}
	if c == nil {
		v.facts.needsEveryone = true
		return bp, nil
	}
	v.facts.censusRead = whole
	seen := map[*state.Person]struct{}{}
	counted := make([]bool, c.n)
	for _, src := range sources {
		for _, id := range src.ids {
			p := v.st.People[id]
			if p == nil {
				p = whole[id]
			}
			if p == nil {
				// Enriched and fresh, or no person (a candidate not read).
				if i := c.lookUp(id); i >= 0 && !counted[i] && !c.candidate(i) {
					counted[i] = true
					bp.enriched++
					if len(e.RefreshOn) > 0 {
						bp.freshUnread++ // a search that runs may show them changed
					}
				}
				continue
			}
			if _, dup := seen[p]; dup {
				continue
			}
			seen[p] = struct{}{}
			if err := v.count(&bp, e, v.look(e, p), src.addr, where); err != nil {
				return bp, err
			}
		}
	}
	bp.members = distinctIDs(sources)
	if len(e.RefreshOn) > 0 {
		bp.countFormer = v.formerCounter(e, sources)
	}
	return bp, nil
}

// censusRead takes the census and reads whole the candidates among the
// members not read, by ID; a nil census: too many of them to read so
// (maxCensusRead).
func (v *env) censusRead(e *config.Enrich, sources []source) (*enrichCensus, map[string]*state.Person, error) {
	l, ok := v.facts.store.(state.EnrichmentLister)
	if !ok {
		return nil, nil, nil
	}
	c, err := takeCensus(v.facts.store, l, e, v.now)
	if err != nil {
		return nil, nil, err
	}
	most := 0
	for _, src := range sources {
		most += len(src.ids)
	}
	most = min(most*3/4, maxCensusRead)
	in := map[string]bool{}
	var ids []string
	for _, src := range sources {
		for _, id := range src.ids {
			if v.st.People[id] != nil || in[id] || !c.candidate(c.lookUp(id)) {
				continue
			}
			if len(ids) == most {
				return nil, nil, nil
			}
			in[id] = true
			ids = append(ids, id)
		}
	}
	whole, err := v.facts.store.People(ids)
	return c, whole, err
}
