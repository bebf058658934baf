package state

import (
	"slices"
	"testing"

	"github.com/leadsync/leadsync/internal/kind"
)

// TestEveryKindThatHoldsRecordsIsHeld fails when a kind whose row in the
// table (internal/kind) says it holds records has no record here, or one
// that does not find what the state holds: state list, show and rm would
// not see it.
func TestEveryKindThatHoldsRecordsIsHeld(t *testing.T) {
	s := New()
	must(t, s.Fold(searchEv(day(0), `module.m.search.a["x"]`, 0, lead("n1", "ann", "Ann"), lead("n2", "bob", "Bob"))))
	must(t, s.Fold(profileEv(day(0), "profile.p", "ann", "Ann")))
	must(t, s.Fold(importEv(day(0), "import.i", imported("n3", "cid", "c@x.example"))))
	must(t, s.Fold(trackEv(day(1), "track.t", "n1", "CTO", "Acme")))
	held := map[kind.Kind]struct {
		addr   string
		people int
	}{
		kind.Search:  {`module.m.search.a["x"]`, 2},
		kind.Profile: {"profile.p", 0},
		kind.Import:  {"import.i", 1},
		kind.Track:   {"track.t", 1},
		kind.Person:  {"person.n2", 0},
	}
	for _, r := range kind.All() {
		rec, ok := records[r.Kind]
		if ok != r.HoldsRecords {
			t.Errorf("%s: holds records %v, has a record in state %v", r.Kind, r.HoldsRecords, ok)
			continue
		}
		if !ok {
			continue
		}
		if (rec.people != nil) != (r.Counted != "") {
			t.Errorf("%s: state rm counts %q, the state counts people: %v", r.Kind, r.Counted, rec.people != nil)
		}
		h, ok := held[r.Kind]
		if !ok {
			t.Errorf("%s: the test holds no record of it", r.Kind)
			continue
		}
		if got := s.Kind(h.addr); got != r.Kind {
			t.Errorf("Kind(%s) = %q, want %q", h.addr, got, r.Kind)
		}
		if got := s.PeopleListed(h.addr); got != h.people {
			t.Errorf("PeopleListed(%s) = %d, want %d", h.addr, got, h.people)
		}
	}
	for _, addr := range []string{"search.none", "track.none", "enrich.e", "person.zz", "module.m.person.n1", "people"} {
		if got := s.Kind(addr); got != kind.None {
			t.Errorf("Kind(%s) = %q; the state holds no record there", addr, got)
		}
	}
	// AddressKinds gives each address of Addresses with what Kind says.
	var addrs []string
	for _, h := range s.AddressKinds() {
		addrs = append(addrs, h.Address)
		if got := s.Kind(h.Address); got != h.Kind || got == kind.None {
			t.Errorf("AddressKinds: %s is of kind %q, Kind says %q", h.Address, h.Kind, got)
		}
	}
	if want := s.Addresses(false); !slices.Equal(addrs, want) || len(addrs) != 4 {
		t.Errorf("AddressKinds lists %q, Addresses %q", addrs, want)
	}
}
