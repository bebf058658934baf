package state

import (
	"testing"

	"github.com/leadsync/leadsync/internal/person"
)

// IsEmpty is about results only: a serial, a failure, usage or a
// suppression list do not make a state hold results.
func TestIsEmpty(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(s *State)
		empty bool
	}{
		{"new", func(*State) {}, true},
		{"serial, failure, usage, suppression", func(s *State) {
			s.Serial = 7
			s.Failures["search.a"] = &Failure{Message: "HTTP 500"}
			s.Usage.CreditsSpent = 3
			s.Suppressed = append(s.Suppressed, &Suppression{Keys: []string{"k"}})
		}, true},
		{"a search that found nobody", func(s *State) {
			must(t, s.Fold(searchEv(t0, "search.a", 0)))
		}, false},
		{"a profile read", func(s *State) { s.Profiles["profile.a"] = &ProfileRead{Address: "profile.a"} }, false},
		{"a person", func(s *State) { s.People["n1"] = &Person{ID: "n1", Lead: person.Lead{NetworkID: "n1"}} }, false},
	} {
		s := New()
		tc.setup(s)
		if got := s.IsEmpty(); got != tc.empty {
			t.Errorf("%s: IsEmpty() = %v, want %v", tc.name, got, tc.empty)
		}
	}
}
