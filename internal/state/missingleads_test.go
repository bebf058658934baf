package state

import (
	"slices"
	"strings"
	"testing"
)

// TestMissingLeadErrorAgrees: one lead ID naming nobody "names" nobody,
// two "name" nobody.
func TestMissingLeadErrorAgrees(t *testing.T) {
	for _, c := range []struct {
		all  MissingLeads
		want string
	}{
		{MissingLeads{IDs: 1, Searches: 1}, "(1 lead ID of 1 search names nobody)"},
		{MissingLeads{IDs: 2, Searches: 1}, "(2 lead IDs of 1 search name nobody)"},
	} {
		if err := missingLeadError("search.a", 0, "x", c.all); !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %s", c.all, err, c.want)
		}
	}
}

// TestCheckNamesANullSearchBesideALeadIDOfNobody: a null search beside a
// lead ID naming nobody is named as such (counting the lead IDs skips it),
// not reported as a crash.
func TestCheckNamesANullSearchBesideALeadIDOfNobody(t *testing.T) {
	s := New()
	s.Lineage = "00000000-0000-4000-8000-000000000001"
	s.Searches["search.a"] = &Search{LeadIDs: []string{"ghost"}}
	s.Searches["search.zz"] = nil
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), `search "search.zz" is null`) {
		t.Errorf("Check: %v, want the null search named", err)
	}
}

// TestRepairNobodyRefusesAPartialState: a state read in part holds
// only the people it read; dropping the IDs of the others would empty
// lists of people the store holds, so it is refused and nothing changes.
func TestRepairNobodyRefusesAPartialState(t *testing.T) {
	whole := New()
	for _, e := range demoEvents() {
		must(t, whole.Fold(e))
	}
	records := *whole
	records.People, records.idx = map[string]*Person{}, nil
	part, err := NewStoredBase(&records, nil, &memPeople{s: whole}).Writable()
	must(t, err)
	var addr string
	for a, sr := range part.Searches {
		if len(sr.LeadIDs) > 1 {
			addr = a
		}
	}
	if addr == "" {
		t.Fatal("no search with two lead IDs in demoEvents")
	}
	before := slices.Clone(part.Searches[addr].LeadIDs)
	must(t, part.ReadPeople(before[:1]))
	if _, err := part.RepairNobody(); err == nil {
		t.Error("RepairNobody of a partial state: no error")
	}
	if got := part.Searches[addr].LeadIDs; !slices.Equal(got, before) {
		t.Errorf("%s's lead list after a refused drop: %v, want %v", addr, got, before)
	}
}
