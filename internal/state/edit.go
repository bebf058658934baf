package state

import (
	"maps"
	"slices"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/kind"
)

// PersonAddressPrefix starts the address of a person in `state list`,
// `state show` and `state rm`: person.<id>.
const PersonAddressPrefix = "person."

// Addresses lists the addresses in s: searches, then profiles, then
// imports, then tracks, then people as person.<id>, each group sorted.
func (s *State) Addresses(withPeople bool) []string {
	out := make([]string, 0, len(s.Searches)+len(s.Profiles)+len(s.Imports))
	out = append(out, slices.Sorted(maps.Keys(s.Searches))...)
	out = append(out, slices.Sorted(maps.Keys(s.Profiles))...)
	out = append(out, slices.Sorted(maps.Keys(s.Imports))...)
	out = append(out, s.TrackAddresses()...)
	if withPeople {
		for _, id := range slices.Sorted(maps.Keys(s.People)) {
			out = append(out, PersonAddressPrefix+id)
		}
	}
	return out
}

// Held is an address of s with the kind of the record s holds there.
type Held struct {
	Address string
	Kind    kind.Kind
}

// AddressKinds is Addresses (without people) with the kind of each: known
// from the records that hold them, not read from the addresses.
func (s *State) AddressKinds() []Held {
	out := make([]Held, 0, len(s.Searches)+len(s.Profiles)+len(s.Imports))
	for _, g := range []struct {
		k     kind.Kind
		addrs []string
	}{
		{kind.Search, slices.Sorted(maps.Keys(s.Searches))},
		{kind.Profile, slices.Sorted(maps.Keys(s.Profiles))},
		{kind.Import, slices.Sorted(maps.Keys(s.Imports))},
		{kind.Track, s.TrackAddresses()},
	} {
		for _, a := range g.addrs {
			out = append(out, Held{a, g.k})
		}
	}
	return out
}

// RemovePerson deletes a person and every reference to them: they leave the
// lead lists of the searches that found them, and a profile record of them
// is dropped (so a later apply reads the profile again). It reports whether
// the person existed. People are removed for good only if no search finds
// them again: use it to honour an erasure request.
func (s *State) RemovePerson(id string) bool {
	p := s.People[id]
	if p == nil {
		return false
	}
	for _, addr := range p.FoundBy {
		if sr := s.Searches[addr]; sr != nil {
			sr.LeadIDs = removeID(sr.LeadIDs, id)
			s.touchSearch(addr)
		}
		if pr := s.Profiles[addr]; pr != nil && pr.PersonID == id {
			delete(s.Profiles, addr)
			s.touchProfile(addr)
		}
		s.dropImported(addr, id, false)
	}
	if len(s.Splits) > 0 {
		s.touchMeta()
	}
	for _, t := range s.Splits {
		for _, n := range t.Nodes {
			n.LeadIDs = removeID(n.LeadIDs, id)
		}
	}
	s.removePerson(id)
	s.resolveUnknown(id)
	return true
}

func removeID(ids []string, id string) []string {
	out := ids[:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// Kind tells what an address names in s: one of the kinds that hold
// records (kind.Kind.HoldsRecords: a search, a profile, an import, a
// track, a person), or kind.None when s holds nothing under it.
func (s *State) Kind(addr string) kind.Kind {
	k := address.Kind(addr)
	if r, ok := records[k]; ok && r.holds(s, addr) {
		return k
	}
	return kind.None
}
