package state_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
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
		leads := make([]person.Lead, api.MaxResults)
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
		leads := make([]person.Lead, api.MaxResults)
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

// BenchmarkFoldTrackChange measures the fold of a track read that finds a
// new job (one change appended to a person's history), at 1,000 and
// 300,000 people: the same figure whatever the state's size.
//
//	go test ./internal/state -run '^$' -bench FoldTrackChange -benchmem -count 3
func BenchmarkFoldTrackChange(b *testing.B) {
	for _, people := range []int{1000, 300000} {
		b.Run(fmt.Sprintf("people=%d", people), func(b *testing.B) {
			s := statetest.BigState(b, max(1, people/60), 60)
			ids := make([]string, 0, 4096)
			for id := range s.People {
				if len(ids) == cap(ids) {
					break
				}
				ids = append(ids, id)
			}
			at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := s.Fold(statetest.TrackChange(at.Add(time.Duration(i)*time.Second), ids[i%len(ids)], i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
