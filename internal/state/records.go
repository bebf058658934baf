package state

import (
	"strings"

	"github.com/leadsync/leadsync/internal/kind"
)

// record is the state's part of a row of the table of kinds
// (internal/kind) for a kind that holds records: whether s holds one at
// an address, and how many people it lists. Every kind whose row says
// HoldsRecords has one (TestEveryKindThatHoldsRecordsIsHeld).
type record struct {
	holds func(s *State, addr string) bool
	// people counts the people the record lists (a search's leads, an
	// import's people, the people a track read); nil when its kind counts
	// none (kind.Row.Counted is "").
	people func(s *State, addr string) int
}

// records is the state's record of each kind that holds records.
var records = map[kind.Kind]record{
	kind.Search: {
		holds:  func(s *State, addr string) bool { return s.Searches[addr] != nil },
		people: func(s *State, addr string) int { return s.Searches[addr].Kept() },
	},
	kind.Profile: {holds: func(s *State, addr string) bool { return s.Profiles[addr] != nil }},
	kind.Import: {
		holds:  func(s *State, addr string) bool { return s.Imports[addr] != nil },
		people: func(s *State, addr string) int { return len(s.Imports[addr].PersonIDs) },
	},
	kind.Track: {
		holds:  (*State).hasTrack,
		people: func(s *State, addr string) int { return len(s.TrackRecordOf(addr).People) },
	},
	kind.Person: {holds: func(s *State, addr string) bool {
		return s.People[strings.TrimPrefix(addr, PersonAddressPrefix)] != nil
	}},
}

// PeopleListed is how many people the record s holds at addr lists: the
// leads of a search, the people of an import, the people a track read; 0
// for a record of a kind that counts none (a profile, a person) and for
// an address s holds nothing at.
func (s *State) PeopleListed(addr string) int {
	k := s.Kind(addr)
	if r := records[k]; r.people != nil {
		return r.people(s, addr)
	}
	return 0
}
