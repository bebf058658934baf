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

// TestNobodyErrorsNameRecover: a split node, an import or a profile read
// naming nobody is refused by Check with the command that repairs it,
// state recover, and RepairNobody repairs it so that Check passes.
func TestNobodyErrorsNameRecover(t *testing.T) {
	for _, c := range []struct {
		name  string
		plant func(s *State)
		want  string
	}{
		{"split node", func(s *State) {
			s.Splits = map[string]*SplitTree{"search.s": {Nodes: []*SplitNode{{Path: []string{}, LeadIDs: []string{"ghost"}}}}}
		}, `node "" lead_ids[0]: person "ghost" is not in people: run leadsync state recover`},
		{"import", func(s *State) {
			s.Imports = map[string]*ImportRecord{"import.i": {PersonIDs: []string{"ghost"}}}
		}, `imports.import.i.person_ids[0]: person "ghost" is not in people: run leadsync state recover`},
		{"profile read", func(s *State) {
			s.Profiles["profile.p"] = &ProfileRead{PersonID: "ghost"}
		}, `profiles.profile.p.person_id: person "ghost" is not in people: run leadsync state recover`},
	} {
		s := New()
		s.Lineage = "00000000-0000-4000-8000-000000000001"
		c.plant(s)
		if err := s.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Check: %v, want %s", c.name, err, c.want)
		}
		r, err := s.RepairNobody()
		if err != nil || !r.Any() {
			t.Fatalf("%s: RepairNobody: %+v %v", c.name, r, err)
		}
		if err := s.Check(); err != nil {
			t.Errorf("%s: Check after RepairNobody: %v", c.name, err)
		}
	}
}
