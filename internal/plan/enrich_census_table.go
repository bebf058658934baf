package plan

import (
	"hash/maphash"
	"math/bits"
	"slices"

	"github.com/leadsync/leadsync/internal/state"
)

// enrichCensus is the census of an enrich block e (takeCensus) as its
// plan needs it: for each member of its sources, whether the member holds
// an enrichment and whether e's refresh finds it stale. It holds no ID of
// its own: the members are the sources' lead lists, which the plan holds
// anyway, found by ID through an open-addressing table of their indexes
// (slots). An enrichment of someone who is no member is not kept. At
// 3,000,000 members: 16 MB of slots and 3 MB of flags, where a table of
// the enrichments' IDs took about 90 MB.
//
// A member's index is its place in the sources taken one after the
// other (member); the same person met again in a later source has the
// index of the first meeting.
type enrichCensus struct {
	n      int            // the members, counted in every source
	lists  []state.IDList // the sources' IDs, the empty ones left out
	starts []int          // the index of each list's first member, increasing
	dups   map[int32]int32
	flags  []uint8 // by member (first meetings only): censusEnriched, censusStale
	slots  []uint32
	shift  uint         // slots hold index+1 in their low shift bits,
	seed   maphash.Seed // and the top bits of its ID's hash above
}

const (
	censusEnriched uint8 = 1 << iota
	censusStale
)

// maxCensusMembers is the most members a census holds (slots keep one
// bit at least for a hash's top).
const maxCensusMembers = 1<<31 - 1

// newEnrichCensus makes the census table of the members of sources, none
// enriched yet; false when they are more than maxCensusMembers.
func newEnrichCensus(sources []source) (*enrichCensus, bool) {
	c := &enrichCensus{seed: maphash.MakeSeed()}
	for _, src := range sources {
		if src.ids.Len() == 0 {
			continue
		}
		if src.ids.Len() > maxCensusMembers-c.n {
			return nil, false
		}
		c.lists = append(c.lists, src.ids)
		c.starts = append(c.starts, c.n)
		c.n += src.ids.Len()
	}
	size := 1
	for size < c.n+c.n/3+1 {
		size *= 2
	}
	c.slots = make([]uint32, size)
	c.shift = uint(bits.Len32(uint32(c.n)))
	c.flags = make([]uint8, c.n)
	k := 0
	for _, ids := range c.lists {
		for _, id := range ids.All() {
			if i := c.insert(id, k); i != k {
				if c.dups == nil {
					c.dups = map[int32]int32{}
				}
				c.dups[int32(k)] = int32(i)
			}
			k++
		}
	}
	return c, true
}

// insert puts member k of ID id in the table and returns k, or returns
// the index of the member met before with the same ID.
func (c *enrichCensus) insert(id string, k int) int {
	h := maphash.String(c.seed, id)
	top := c.top(h)
	mask := uint64(len(c.slots) - 1)
	for s := h & mask; ; s = (s + 1) & mask {
		v := c.slots[s]
		if v == 0 {
			c.slots[s] = top | uint32(k+1)
			return k
		}
		if v&^c.low() == top {
			if i := int(v&c.low()) - 1; c.id(i) == id {
				return i
			}
		}
	}
}

// lookUp returns the index of the member of ID id, -1 for none.
func (c *enrichCensus) lookUp(id string) int {
	if c.n == 0 {
		return -1
	}
	h := maphash.String(c.seed, id)
	top := c.top(h)
	mask := uint64(len(c.slots) - 1)
	for s := h & mask; c.slots[s] != 0; s = (s + 1) & mask {
		v := c.slots[s]
		if v&^c.low() == top {
			if i := int(v&c.low()) - 1; c.id(i) == id {
				return i
			}
		}
	}
	return -1
}

// low is the mask of a slot's index bits.
func (c *enrichCensus) low() uint32 { return 1<<c.shift - 1 }

// top is what a slot keeps of hash h above its index bits.
func (c *enrichCensus) top(h uint64) uint32 {
	return uint32(h>>32) &^ c.low()
}

// id is the ID of member k.
func (c *enrichCensus) id(k int) string { return idAt(c.lists, c.starts, k) }

// idAt is the k-th ID of lists taken one after the other, starts giving
// the index of each list's first ID.
func idAt(lists []state.IDList, starts []int, k int) string {
	l, found := slices.BinarySearch(starts, k)
	if !found {
		l--
	}
	return lists[l].At(k - starts[l])
}

// placedIDs are IDs of a census' sources held by their index there (k, as
// member takes it): 4 bytes each, where a string each takes 16 and
// append's growth up to twice that. The census' people to enrich of a
// block that counts them are so held (492,000 at 3,000,000 people: 2 MB,
// not 8.7 MB a list). The lists are the sources' lead lists, which the
// plan holds anyway.
type placedIDs struct {
	lists  []state.IDList
	starts []int
	ks     []int32
}

// placed is an empty list of IDs of c's members.
func (c *enrichCensus) placed() *placedIDs { return &placedIDs{lists: c.lists, starts: c.starts} }

// add appends the k-th ID of the sources.
func (p *placedIDs) add(k int) { p.ks = append(p.ks, int32(k)) }

// len is the number of IDs held (none when p is nil).
func (p *placedIDs) len() int {
	if p == nil {
		return 0
	}
	return len(p.ks)
}

// at is the i-th ID held.
func (p *placedIDs) at(i int) string { return idAt(p.lists, p.starts, int(p.ks[i])) }

// all yields the IDs held, in order (none when p is nil).
func (p *placedIDs) all(yield func(string) bool) {
	if p == nil {
		return
	}
	for i := range p.ks {
		if !yield(p.at(i)) {
			return
		}
	}
}

// member is the index of the k-th ID of the sources taken one after the
// other: k, or the index of the first meeting of the same person.
func (c *enrichCensus) member(k int) int {
	if i, ok := c.dups[int32(k)]; ok {
		return int(i)
	}
	return k
}

// enriched records that the member of ID id holds an enrichment (none
// for someone who is no member).
func (c *enrichCensus) enriched(id string) {
	if i := c.lookUp(id); i >= 0 {
		c.flags[i] |= censusEnriched
	}
}

// stale records that the enrichment of the member of ID id is stale
// for the census' block.
func (c *enrichCensus) stale(id string) {
	if i := c.lookUp(id); i >= 0 {
		c.flags[i] |= censusStale
	}
}

// candidate reports whether member i (-1: none) is to be enriched by the
// census' block if it is not read: it holds no enrichment, or one the
// block's refresh finds stale. A member not read has a page name, is on
// the network, holds no enrichment of an unknown outcome, no copy of the
// block's, no import's e-mail and, with a refresh, no enrichment of the
// block's that is stale (enrichReads reads those): what else collectEach
// knows of them changes nothing.
func (c *enrichCensus) candidate(i int) bool {
	return i < 0 || c.flags[i]&censusEnriched == 0 || c.flags[i]&censusStale != 0
}
