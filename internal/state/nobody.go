package state

import (
	"fmt"
	"maps"
	"slices"
)

// IDs that name nobody: a record naming a person the state does not hold
// (a search's lead ID, a split run's node's lead ID, an import's person
// ID, a profile read's person). leadsync never writes one, and Check
// refuses a state that holds some. state recover repairs them as the
// removal of that person would have (RemovePerson). The IDs leave the
// searches', split nodes' and imports' lists (the others stay, in their
// order). A profile read whose person is gone is removed, so that the
// next apply reads it again. A store finds them by asking which IDs name
// no person (FindNobody, the people unread). It cuts the lead lists
// itself (Changes.Cut): memory goes with what is repaired, not with the
// state.

// Repairs counts what state recover repaired, by kind (DropNobody).
type Repairs struct {
	// LeadIDs lead IDs were taken out of the lead lists of Searches
	// searches.
	LeadIDs, Searches int
	// SplitIDs lead IDs were taken out of the nodes of Splits split runs
	// under way.
	SplitIDs, Splits int
	// ImportIDs person IDs were taken out of the lists of Imports imports.
	ImportIDs, Imports int
	// Profiles profile reads were removed: their person is gone, so the
	// next apply reads them again.
	Profiles int
}

// Any reports whether r repaired something.
func (r Repairs) Any() bool { return r != Repairs{} }

// Plus is r and o counted together.
func (r Repairs) Plus(o Repairs) Repairs {
	return Repairs{LeadIDs: r.LeadIDs + o.LeadIDs, Searches: r.Searches + o.Searches, SplitIDs: r.SplitIDs + o.SplitIDs,
		Splits: r.Splits + o.Splits, ImportIDs: r.ImportIDs + o.ImportIDs, Imports: r.Imports + o.Imports, Profiles: r.Profiles + o.Profiles}
}

// Nobody is what FindNobody found: the IDs the records name that name no
// person, and the searches whose lead lists hold some.
type Nobody struct {
	absent map[string]bool
	// lists counts, by search address, the lead IDs of its list that
	// name nobody.
	lists map[string]int
}

// None reports whether n found no ID naming nobody.
func (n *Nobody) None() bool { return len(n.absent) == 0 }

// nobodyChunk is how many searches' lead lists FindNobody reads at a time.
const nobodyChunk = 256

// FindNobody finds the IDs of b's records that name no person: it asks
// the store (Absent) about the searches' lead lists, nobodyChunk lists at
// a time, then about the IDs the other records name, without reading the
// people. What it keeps is what it found. A null record is Check's to
// report.
func (b *Base) FindNobody() (*Nobody, error) {
	n := &Nobody{absent: map[string]bool{}, lists: map[string]int{}}
	addrs := slices.Sorted(maps.Keys(b.Records.Searches))
	for chunk := range slices.Chunk(addrs, nobodyChunk) {
		if err := n.findInLists(b, chunk); err != nil {
			return nil, err
		}
	}
	absent, err := b.Absent(recordIDs(b.Records))
	if err != nil {
		return nil, err
	}
	n.note(absent)
	return n, nil
}

// findInLists finds the lead IDs naming nobody in the lists of the
// searches at addrs, read from b's store where its records were read
// without them.
func (n *Nobody) findInLists(b *Base, addrs []string) error {
	lists, err := b.leadLists(addrs)
	if err != nil {
		return err
	}
	if lists == nil {
		lists = map[string][]string{}
	}
	var ids []string
	for _, addr := range addrs {
		if _, read := lists[addr]; !read && b.Records.Searches[addr] != nil {
			lists[addr] = b.Records.Searches[addr].LeadIDs
		}
		ids = append(ids, lists[addr]...)
	}
	absent, err := b.Absent(ids)
	if err != nil || len(absent) == 0 {
		return err
	}
	n.note(absent)
	for addr, l := range lists {
		if c := n.count(l); c > 0 {
			n.lists[addr] = c
		}
	}
	return nil
}

// note adds ids to the IDs found naming nobody.
func (n *Nobody) note(ids []string) {
	for _, id := range ids {
		n.absent[id] = true
	}
}

// count counts the IDs of ids found naming nobody.
func (n *Nobody) count(ids []string) int {
	c := 0
	for _, id := range ids {
		if n.absent[id] {
			c++
		}
	}
	return c
}

// recordIDs are the person IDs s's records other than the searches name:
// the split nodes' lead IDs, the imports' person IDs, the profile reads'
// persons.
func recordIDs(s *State) []string {
	var ids []string
	for _, t := range s.Splits {
		if t == nil {
			continue
		}
		for _, nd := range t.Nodes {
			if nd != nil {
				ids = append(ids, nd.LeadIDs...)
			}
		}
	}
	for _, v := range s.Imports {
		if v != nil {
			ids = append(ids, v.PersonIDs...)
		}
	}
	for _, v := range s.Profiles {
		if v != nil && v.PersonID != "" {
			ids = append(ids, v.PersonID)
		}
	}
	return ids
}

// DropNobody repairs what n found (of s's Base) and says what it repaired.
// A partial state has its store cut the lead lists it does not hold
// (Changes.Cut: each keeps the IDs of the people the store holds, in
// order); a state read whole cuts them in memory. The split nodes' and
// imports' lists lose those IDs, and a profile read of someone gone is
// removed. The next commit writes the changes.
func (s *State) DropNobody(n *Nobody) Repairs {
	var r Repairs
	if n.None() {
		return r
	}
	gone := func(id string) bool { return n.absent[id] }
	for addr, c := range n.lists {
		sr := s.Searches[addr]
		if sr == nil {
			continue
		}
		r.LeadIDs, r.Searches = r.LeadIDs+c, r.Searches+1
		if !s.cutInStore(addr) {
			sr.LeadIDs = slices.DeleteFunc(sr.LeadIDs, gone)
			s.touchSearch(addr)
		}
	}
	r.SplitIDs, r.Splits = s.dropFromSplits(gone)
	r.ImportIDs, r.Imports = s.dropFromImports(gone)
	if r.SplitIDs+r.ImportIDs > 0 {
		// The split runs and the imports are in the header. state
		// recover's Commit writes the header anyway, but the changes say
		// every change, as SetConfiguration does: a flush of the changes
		// alone (a checkpoint) writes it only then.
		s.touchMeta()
	}
	r.Profiles = s.dropProfilesOf(gone)
	return r
}

// dropFromSplits takes the IDs gone reports out of the nodes of the split
// runs under way, and counts them and the runs that held some; the
// caller notes the change (touchMeta).
func (s *State) dropFromSplits(gone func(string) bool) (ids, runs int) {
	for _, t := range s.Splits {
		if t == nil {
			continue
		}
		before := ids
		for _, nd := range t.Nodes {
			if nd != nil {
				ids += dropIDs(&nd.LeadIDs, gone)
			}
		}
		if ids > before {
			runs++
		}
	}
	return ids, runs
}

// dropFromImports takes the IDs gone reports out of the imports' person
// IDs, and counts them and the imports that held some; the caller notes
// the change (touchMeta).
func (s *State) dropFromImports(gone func(string) bool) (ids, imports int) {
	for _, v := range s.Imports {
		if v == nil {
			continue
		}
		if k := dropIDs(&v.PersonIDs, gone); k > 0 {
			ids, imports = ids+k, imports+1
		}
	}
	return ids, imports
}

// dropProfilesOf removes the profile reads whose person gone reports, as
// RemovePerson does, and counts them.
func (s *State) dropProfilesOf(gone func(string) bool) int {
	n := 0
	for addr, v := range s.Profiles {
		if v != nil && v.PersonID != "" && gone(v.PersonID) {
			delete(s.Profiles, addr)
			s.touchProfile(addr)
			n++
		}
	}
	return n
}

// dropIDs takes the IDs gone reports out of *ids, in place (the order of
// the others kept), and counts them.
func dropIDs(ids *[]string, gone func(string) bool) int {
	before := len(*ids)
	*ids = slices.DeleteFunc(*ids, gone)
	return before - len(*ids)
}

// RepairNobody repairs, in s read whole, every ID of its records that
// names nobody (FindNobody, DropNobody). A partial state is refused: it
// holds only the people it read.
func (s *State) RepairNobody() (Repairs, error) {
	if s.Partial() {
		return Repairs{}, fmt.Errorf("the records of a state read in part cannot be checked against its people")
	}
	n, err := NewBase(s).FindNobody()
	if err != nil {
		return Repairs{}, err
	}
	return s.DropNobody(n), nil
}
