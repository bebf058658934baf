package state

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
)

// bigLead is a lead with realistic field sizes.
func bigLead(i int) api.Lead {
	return api.Lead{
		FirstName:     fmt.Sprintf("Firstname%d", i),
		LastName:      fmt.Sprintf("Lastname-%d", i),
		FullName:      fmt.Sprintf("Firstname%d Lastname-%d", i, i),
		Title:         "Chief Technology Officer & Co-Founder",
		Location:      "Berlin, Berlin, Germany",
		PreviousTitle: "VP Engineering",
		Company:       fmt.Sprintf("Company %d GmbH", i%5000),
		NetworkID:     fmt.Sprintf("%d.%016x", 100000+i, uint64(i)*0x9e3779b97f4a7c15),
		PageName:      fmt.Sprintf("firstname-lastname-%d", i),
	}
}

// bigState builds, through Fold, a state of searches*perSearch people found
// by searches searches, every tenth person enriched.
func bigState(tb testing.TB, searches, perSearch int) *State {
	tb.Helper()
	s := New()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	for i := 0; i < searches; i++ {
		leads := make([]api.Lead, perSearch)
		for j := range leads {
			leads[j] = bigLead(n)
			n++
		}
		e := Event{At: at, Kind: EventSearch, Address: fmt.Sprintf("search.cto[%q]", fmt.Sprintf("city-%d", i)),
			Search: &SearchEvent{Generation: api.Gen1, Request: []byte(fmt.Sprintf(`{"city":"city-%d","keywords":"CTO"}`, i)), Leads: leads}}
		if err := s.Fold(e); err != nil {
			tb.Fatal(err)
		}
	}
	k := 0
	for id, p := range s.People {
		if k++; k%10 != 0 {
			continue
		}
		e := Event{At: at, Kind: EventEnrich, Address: "enrich.all", Enrich: &EnrichEvent{PersonID: id, Credits: 1,
			Result: api.EnrichedProfile{NetworkID: id, PageName: p.Lead.PageName, Email: "someone@example.com", ValidationStatus: api.StatusValid, CompanyDomain: "example.com", CreditBalance: 1000}}}
		if err := s.Fold(e); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// The goal (issue 4): plan for 5,000 searches and 300,000 people in under
// 1 s; Load is the biggest part of that.
//
//	go test ./internal/state -run '^$' -bench . -benchmem -benchtime 3x
func BenchmarkLoad300k(b *testing.B) {
	s := bigState(b, 5000, 60)
	store := NewStore(filepath.Join(b.TempDir(), ".leadsync", "state.json"))
	if err := store.Save(s); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	defer cpuMetric(b)()
	if fi, err := os.Stat(store.Path()); err == nil {
		defer b.ReportMetric(float64(fi.Size())/1e6, "MB-file")
	}
	for i := 0; i < b.N; i++ {
		got, err := store.Load()
		if err != nil {
			b.Fatal(err)
		}
		if len(got.People) != 300000 {
			b.Fatalf("%d people", len(got.People))
		}
	}
}

func BenchmarkSave300k(b *testing.B) {
	s := bigState(b, 5000, 60)
	store := NewStore(filepath.Join(b.TempDir(), ".leadsync", "state.json"))
	b.ResetTimer()
	defer cpuMetric(b)()
	for i := 0; i < b.N; i++ {
		if err := store.Save(s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFoldSearch300k measures one search of 300 results (all new
// people, then a rerun) against a state of 300,000 people.
func BenchmarkFoldSearch300k(b *testing.B) {
	s := bigState(b, 5000, 60)
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	b.ResetTimer()
	defer cpuMetric(b)()
	for i := 0; i < b.N; i++ {
		leads := make([]api.Lead, api.MaxResults)
		for j := range leads {
			leads[j] = bigLead(1_000_000 + i*api.MaxResults + j)
		}
		e := Event{At: at, Kind: EventSearch, Address: "search.new", Search: &SearchEvent{Generation: api.Gen1, Request: []byte(`{}`), Leads: leads}}
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
	s := bigState(b, 5000, 60)
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 1000; i++ {
		s.Suppressed = append(s.Suppressed, &Suppression{Keys: IdentifierKeys(bigLead(2_000_000 + i).NetworkID), At: at})
	}
	b.ResetTimer()
	defer cpuMetric(b)()
	for i := 0; i < b.N; i++ {
		leads := make([]api.Lead, api.MaxResults)
		for j := range leads {
			leads[j] = bigLead(1_000_000 + i*api.MaxResults + j)
		}
		leads[0] = bigLead(2_000_000 + i%1000)
		e := Event{At: at, Kind: EventSearch, Address: "search.new", Search: &SearchEvent{Generation: api.Gen1, Request: []byte(`{}`), Leads: leads}}
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
		bigState(b, 5000, 60)
	}
}

// cpuMetric reports the CPU time (user+system) per operation next to the
// wall time: on a shared machine the wall time says more about the
// neighbours than about the code.
func cpuMetric(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
	}
}
