package state

import (
	"fmt"
	"hash/maphash"
	"math/bits"
	"slices"
)

// A state read in two parts (state push, state pull): its header, every
// record but the people (held in memory: searches, profiles, failures,
// the suppression list, ...), and its people, which pass in batches and
// are never held all at once. Check and HonourErasures need every person
// at hand; these are their forms for such a state.

// RefCheck is Check for a state whose people pass by in batches: the
// people the header's records name are kept as sorted 64-bit hashes of
// their IDs (8 bytes a name: a state of 3 million people names about as
// many), and a bit per hash says a person of that hash passed. The seed
// is random, so that two IDs that share a hash (a chance of about one in
// 10^12 at 3 million) cannot be made on purpose.
type RefCheck struct {
	seed maphash.Seed
	ids  []uint64
	seen []uint64
	// starts[b] is the index in ids of the first hash whose top bits are
	// b (about 8 hashes a bucket, 2 MB at 3 million names, 4 MB at most): a search of
	// the whole list took 1.4 s of a push's CPU at 3,000,000 people, most
	// of it waiting for memory.
	starts []uint32
	shift  uint
}

// CheckHeader is Check of s's header (s.People is not looked at): what
// Check checks and repairs of the records, and the names of the people
// they refer to, which the RefCheck returned checks as the people pass.
func (s *State) CheckHeader() (*RefCheck, error) {
	switch {
	case s.FormatVersion < 1:
		return nil, fmt.Errorf("format_version is missing or %d: not a leadsync state file", s.FormatVersion)
	case s.Lineage == "":
		return nil, fmt.Errorf("lineage is missing")
	}
	s.normalize()
	if err := s.checkRecords(false); err != nil {
		return nil, err
	}
	c := &RefCheck{seed: maphash.MakeSeed()}
	n := 0
	for _, v := range s.Searches {
		n += len(v.LeadIDs)
	}
	ids := make([]uint64, 0, n)
	add := func(names ...string) {
		for _, id := range names {
			ids = append(ids, c.hash(id))
		}
	}
	for _, v := range s.Searches {
		add(v.LeadIDs...)
	}
	for k, t := range s.Splits {
		if t == nil {
			return nil, fmt.Errorf("split run %q is null", k)
		}
		for _, n := range t.Nodes {
			if n == nil {
				return nil, fmt.Errorf("split run %q has a null node", k)
			}
			add(n.LeadIDs...)
		}
	}
	for k, v := range s.Imports {
		if v == nil {
			return nil, fmt.Errorf("import %q is null", k)
		}
		add(v.PersonIDs...)
	}
	for _, v := range s.Profiles {
		if v.PersonID != "" {
			add(v.PersonID)
		}
	}
	slices.Sort(ids)
	c.ids = slices.Clip(slices.Compact(ids))
	c.seen = make([]uint64, (len(c.ids)+63)/64)
	c.index()
	return c, nil
}

func (c *RefCheck) hash(id string) uint64 { return maphash.String(c.seed, id) }

// index makes starts from the sorted ids.
func (c *RefCheck) index() {
	k := max(0, min(20, bits.Len(uint(len(c.ids)))-3))
	c.shift = uint(64 - k)
	c.starts = make([]uint32, 1<<k+1)
	b := 0
	for i, h := range c.ids {
		for ; b <= int(h>>c.shift); b++ {
			c.starts[b] = uint32(i)
		}
	}
	for ; b < len(c.starts); b++ {
		c.starts[b] = uint32(len(c.ids))
	}
}

// find is slices.BinarySearch(c.ids, h), in h's bucket only.
func (c *RefCheck) find(h uint64) (int, bool) {
	b := h >> c.shift
	lo, hi := c.starts[b], c.starts[b+1]
	i, ok := slices.BinarySearch(c.ids[lo:hi], h)
	return int(lo) + i, ok
}

// Reset forgets the people passed so far (a new pass).
func (c *RefCheck) Reset() { clear(c.seen) }

// Person checks a person as it passes, read under the key id (CheckPerson).
func (c *RefCheck) Person(id string, p *Person) error {
	if err := CheckPerson(id, p); err != nil {
		return err
	}
	if i, ok := c.find(c.hash(p.ID)); ok {
		c.seen[i/64] |= 1 << (i % 64)
	}
	return nil
}

// Complete reports whether every person the header names passed: Done
// then finds nothing.
func (c *RefCheck) Complete() bool {
	for i, w := range c.seen {
		full := ^uint64(0)
		if rest := len(c.ids) - 64*i; rest < 64 {
			full = 1<<rest - 1
		}
		if w != full {
			return false
		}
	}
	return true
}

// Done reports, once every person passed, a record of s (the header the
// RefCheck was made from) that names a person who did not pass, in the
// words of Check.
func (c *RefCheck) Done(s *State) error {
	has := func(id string) bool {
		i, ok := c.find(c.hash(id))
		return ok && c.seen[i/64]&(1<<(i%64)) != 0
	}
	for k, v := range s.Searches {
		for i, id := range v.LeadIDs {
			if !has(id) {
				return missingLeadError(k, i, id, s.countMissingLeads(has))
			}
		}
	}
	for k, t := range s.Splits {
		for _, n := range t.Nodes {
			for i, id := range n.LeadIDs {
				if !has(id) {
					return splitNobodyError(k, t.Dimensions, n.Path, i, id)
				}
			}
		}
	}
	for k, v := range s.Imports {
		for i, id := range v.PersonIDs {
			if !has(id) {
				return importNobodyError(k, i, id)
			}
		}
	}
	for k, v := range s.Profiles {
		if v.PersonID != "" && !has(v.PersonID) {
			return profileNobodyError(k, v.PersonID)
		}
	}
	return nil
}

// HonourStreamed is HonourErasures for the header s of a state whose
// people pass by in batches (people makes one pass over them): when an
// entry of the record is not on s's suppression list yet, one pass finds
// the people it names, and the erasure is folded into s with them alone.
// It returns the IDs of the people erased, whom the state's people must
// then leave out; nil, with no pass made, when s honours every entry
// already.
func (s *State) HonourStreamed(entries []*Suppression, people func(fn func([]*Person) error) error) (map[string]bool, error) {
	set := s.suppressedSet()
	want := map[string]bool{}
	for _, e := range entries {
		if e == nil {
			continue
		}
		for _, k := range e.Keys {
			if !set[k] {
				for _, k := range e.Keys {
					want[k] = true
				}
				break
			}
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	held := map[string]*Person{}
	err := people(func(batch []*Person) error {
		for _, p := range batch {
			if p == nil {
				continue
			}
			for _, k := range PersonKeys(p) {
				if want[k] {
					held[p.ID] = p
					break
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.People == nil {
		s.People = map[string]*Person{}
	}
	for id, p := range held {
		s.People[id] = p
	}
	s.idx = nil
	if _, err := s.HonourErasures(entries); err != nil {
		return nil, err
	}
	erased := make(map[string]bool, len(held))
	for id := range held {
		erased[id] = true
		delete(s.People, id) // every one of them is erased; kept out all the same
	}
	s.idx = nil
	return erased, nil
}
