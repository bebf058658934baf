package plan

import (
	"cmp"
	"errors"
	"hash/maphash"
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

// enrichCensus is every enrichment of a store: per enrichment its
// person's ID (packed in ids), the address that made it (an index into
// addrs) and its time, sorted by the ID's 64-bit hash for lookUp. At
// 1,000,000 enrichments: 32 MB and the IDs.
type enrichCensus struct {
	keys  []censusKey
	ids   []byte
	addrs []string
	seed  maphash.Seed
}

type censusKey struct {
	hash uint64
	sec  int64 // the time: Unix seconds and nanoseconds
	off  uint32
	nsec int32
	n    uint16 // the ID's length
	by   uint16
}

// errCensusTooLarge: an ID or a count the census cannot hold.
var errCensusTooLarge = errors.New("the enrichments do not fit the census")

// takeCensus reads every enrichment of l.
func takeCensus(l state.EnrichmentLister) (*enrichCensus, error) {
	c := &enrichCensus{seed: maphash.MakeSeed()}
	byIndex := map[string]uint16{}
	err := l.EachEnrichment(func(id, by string, at time.Time) error {
		k, ok := byIndex[by]
		if !ok {
			if len(c.addrs) > 0xffff {
				return errCensusTooLarge
			}
			k = uint16(len(c.addrs))
			byIndex[by] = k
			c.addrs = append(c.addrs, by)
		}
		if len(id) > 0xffff || len(c.ids)+len(id) > 0xffffffff {
			return errCensusTooLarge
		}
		c.keys = append(c.keys, censusKey{hash: maphash.String(c.seed, id), sec: at.Unix(), nsec: int32(at.Nanosecond()),
			off: uint32(len(c.ids)), n: uint16(len(id)), by: k})
		c.ids = append(c.ids, id...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(c.keys, func(a, b censusKey) int { return cmp.Compare(a.hash, b.hash) })
	return c, nil
}

// lookUp returns the index of id's enrichment in c.keys, -1 for none.
func (c *enrichCensus) lookUp(id string) int {
	h := maphash.String(c.seed, id)
	i, _ := slices.BinarySearchFunc(c.keys, h, func(k censusKey, h uint64) int { return cmp.Compare(k.hash, h) })
	for ; i < len(c.keys) && c.keys[i].hash == h; i++ {
		k := c.keys[i]
		if string(c.ids[k.off:k.off+uint32(k.n)]) == id {
			return i
		}
	}
	return -1
}

// at is the time of enrichment i.
func (c *enrichCensus) at(i int) time.Time {
	return time.Unix(c.keys[i].sec, int64(c.keys[i].nsec)).UTC()
}

// candidate reports whether a member not read, whose enrichment is the
// census' i (-1: none), is to be enriched by e: none, or one e's refresh
// finds stale (stale). A member not read has a page name, is on the
// network, holds no enrichment of an unknown outcome, no copy of e's, no
// import's e-mail and, with a refresh, no enrichment of e's that is stale
// (enrichReads reads those).
func (v *env) censusCandidate(e *config.Enrich, c *enrichCensus, i int) bool {
	return i < 0 || e.Refresh > 0 && v.now.Sub(c.at(i)) >= e.Refresh
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
	seen := map[*state.Person]struct{}{}
	counted := make([]bool, len(c.keys))
	for _, src := range sources {
		for _, id := range src.ids {
			p := v.st.People[id]
			if p == nil {
				p = whole[id]
			}
			if p == nil {
				// Enriched and fresh, or no person (a candidate not read).
				if i := c.lookUp(id); i >= 0 && !counted[i] && !v.censusCandidate(e, c, i) {
					counted[i] = true
					bp.enriched++
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
	c, err := takeCensus(l)
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
			if v.st.People[id] != nil || in[id] || !v.censusCandidate(e, c, c.lookUp(id)) {
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
