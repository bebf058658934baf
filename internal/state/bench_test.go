package state_test

import (
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

// The state's benchmarks: folding into a state of 300,000 people
// (loading and saving it are internal/state/local's).
//
//	go test ./internal/state -run '^$' -bench . -benchmem -benchtime 3x

// BenchmarkFoldSearch300k measures one search of 300 results (all new
// people, then a rerun) against a state of 300,000 people.
func BenchmarkFoldSearch300k(b *testing.B) {
	s := statetest.BigState(b, 5000, 60)
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	b.ResetTimer()
	defer statetest.CPUMetric(b)()
	for i := 0; i < b.N; i++ {
		leads := make([]api.Lead, api.MaxResults)
		for j := range leads {
			leads[j] = statetest.BigLead(1_000_000 + i*api.MaxResults + j)
		}
		e := state.Event{At: at, Kind: state.EventSearch, Address: "search.new", Search: &state.SearchEvent{Generation: api.Gen1, Request: []byte(`{}`), Leads: leads}}
		if err := s.Fold(e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFoldSearchSuppressed is BenchmarkFoldSearch300k with 1,000
// people on the suppression list (one of them in every search): the
// check costs two hashes per result, and the set is built once, not per
// search.
func BenchmarkFoldSearchSuppressed(b *testing.B) {
	s := statetest.BigState(b, 5000, 60)
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 1000; i++ {
		s.Suppressed = append(s.Suppressed, &state.Suppression{Keys: state.IdentifierKeys(statetest.BigLead(2_000_000 + i).NetworkID), At: at})
	}
	b.ResetTimer()
	defer statetest.CPUMetric(b)()
	for i := 0; i < b.N; i++ {
		leads := make([]api.Lead, api.MaxResults)
		for j := range leads {
			leads[j] = statetest.BigLead(1_000_000 + i*api.MaxResults + j)
		}
		leads[0] = statetest.BigLead(2_000_000 + i%1000)
		e := state.Event{At: at, Kind: state.EventSearch, Address: "search.new", Search: &state.SearchEvent{Generation: api.Gen1, Request: []byte(`{}`), Leads: leads}}
		if err := s.Fold(e); err != nil {
			b.Fatal(err)
		}
		if s.Searches["search.new"].Suppressed != 1 {
			b.Fatalf("suppressed %d, want 1", s.Searches["search.new"].Suppressed)
		}
	}
}

// BenchmarkBuild300k measures building the whole state through Fold,
// which is also what replaying a journal of that size costs.
func BenchmarkBuild300k(b *testing.B) {
	for i := 0; i < b.N; i++ {
		statetest.BigState(b, 5000, 60)
	}
}
