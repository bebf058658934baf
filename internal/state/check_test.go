package state

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestCheckPerson: what Check does to each person, CheckPerson does to
// one: refuses a null or one under another ID, fills in a missing ID, and
// sorts found_by on a copy (the loader shares lists between people).
func TestCheckPerson(t *testing.T) {
	shared := []string{"search.b", "search.a"}
	tests := []struct {
		name    string
		p       *Person
		wantErr string
		wantID  string
		wantBy  []string
	}{
		{name: "null", p: nil, wantErr: `person "k" is null`},
		{name: "other id", p: &Person{ID: "x"}, wantErr: `person "k" has id "x"`},
		{name: "no id", p: &Person{}, wantID: "k"},
		{name: "unsorted", p: &Person{ID: "k", FoundBy: shared}, wantID: "k", wantBy: []string{"search.a", "search.b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPerson("k", tt.p)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("got %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || tt.p.ID != tt.wantID || !slices.Equal(tt.p.FoundBy, tt.wantBy) {
				t.Fatalf("got %v, id %q, found_by %v", err, tt.p.ID, tt.p.FoundBy)
			}
		})
	}
	if !slices.Equal(shared, []string{"search.b", "search.a"}) {
		t.Errorf("the shared list was sorted in place: %v", shared)
	}
}

// TestCheckExceptPeople: after CheckPerson on every person, the rest of
// Check finds what Check finds.
func TestCheckExceptPeople(t *testing.T) {
	for name, s := range map[string]*State{
		"good": {FormatVersion: 1, Lineage: "l", People: map[string]*Person{"a": {ID: "a"}},
			Searches: map[string]*Search{"search.s": {LeadIDs: []string{"a"}}}},
		"dangling lead": {FormatVersion: 1, Lineage: "l", People: map[string]*Person{"a": {ID: "a"}},
			Searches: map[string]*Search{"search.s": {LeadIDs: []string{"a", "b"}}}},
		"null search":  {FormatVersion: 1, Lineage: "l", Searches: map[string]*Search{"search.s": nil}},
		"null profile": {FormatVersion: 1, Lineage: "l", Profiles: map[string]*ProfileRead{"profile.p": nil}},
		"no lineage":   {FormatVersion: 1},
	} {
		for id, p := range s.People {
			if err := CheckPerson(id, p); err != nil {
				t.Fatal(err)
			}
		}
		got, want := s.CheckExceptPeople(), s.Check()
		if (got == nil) != (want == nil) || (got != nil && got.Error() != want.Error()) {
			t.Errorf("%s: CheckExceptPeople %v, Check %v", name, got, want)
		}
	}
}

// TestCheckManyLeadIDs: the lead IDs of a large state, looked up on
// several cores, are all looked up.
func TestCheckManyLeadIDs(t *testing.T) {
	s := &State{FormatVersion: 1, Lineage: "l", People: map[string]*Person{}, Searches: map[string]*Search{}}
	for i := range 1000 {
		rec := &Search{}
		for j := range 60 {
			id := fmt.Sprintf("%d.%d", i, j)
			s.People[id] = &Person{ID: id}
			rec.LeadIDs = append(rec.LeadIDs, id)
		}
		s.Searches[fmt.Sprintf("search.s[%d]", i)] = rec
	}
	if n := 1000 * 60; n < minParallelLeadIDs {
		t.Fatalf("%d lead IDs are looked up on one core", n)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	s.Searches["search.s[999]"].LeadIDs[59] = "gone"
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), `searches.search.s[999].lead_ids[59]: person "gone" is not in people`) {
		t.Errorf("got %v", err)
	}
}

// TestCheckNamesTheSameFaultEveryTime: of several faults in one kind of
// record, Check names the one of the smallest key, whatever order the map
// gives; a state file with two broken people got one message on one run
// and another on the next (CI's fuzzing found it: the parallel and the
// sequential reader disagreed).
func TestCheckNamesTheSameFaultEveryTime(t *testing.T) {
	tests := []struct {
		name  string
		state func() *State
		want  string
	}{
		{"people", func() *State {
			people := map[string]*Person{"1": {ID: "2"}, "8": nil}
			for i := range 30 {
				people[fmt.Sprintf("p%02d", i)] = nil
			}
			return &State{FormatVersion: 1, Lineage: "l", People: people}
		}, `person "1" has id "2"`},
		{"searches", func() *State {
			return &State{FormatVersion: 1, Lineage: "l", Searches: map[string]*Search{
				"search.b": nil, "search.a": {Address: "search.z"}, "search.c": nil, "search.d": nil}}
		}, `search "search.a" has address "search.z"`},
		{"lead ids", func() *State {
			return &State{FormatVersion: 1, Lineage: "l", Searches: map[string]*Search{
				"search.b": {LeadIDs: []string{"x"}}, "search.a": {LeadIDs: []string{"y"}},
				"search.c": {LeadIDs: []string{"z"}}, "search.d": {LeadIDs: []string{"w"}}}}
		}, `searches.search.a.lead_ids[0]: person "y" is not in people`},
		{"imports", func() *State {
			return &State{FormatVersion: 1, Lineage: "l", Imports: map[string]*ImportRecord{
				"import.b": nil, "import.a": nil, "import.c": nil, "import.d": nil}}
		}, `import "import.a" is null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 50 {
				err := tt.state().Check()
				if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
					t.Fatalf("got %v, want %q", err, tt.want)
				}
			}
		})
	}
}
