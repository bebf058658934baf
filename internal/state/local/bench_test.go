package local

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statetest"
	"github.com/leadsync/leadsync/internal/testenv"
)

// The goal (issue 4): plan for 5,000 searches and 300,000 people in under
// 1 s; Load is the biggest part of that.
//
//	go test ./internal/state/local -run '^$' -bench . -benchmem -benchtime 3x
func BenchmarkLoad300k(b *testing.B) {
	s := statetest.BigState(b, 5000, 60)
	store := NewStore(filepath.Join(b.TempDir(), ".leadsync", "state.json"))
	if err := store.Save(s); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	defer statetest.CPUMetric(b)()
	if fi, err := os.Stat(store.Path()); err == nil {
		defer b.ReportMetric(float64(fi.Size())/1e6, "MB-file")
	}
	var got *state.State
	for i := 0; i < b.N; i++ {
		var err error
		if got, err = store.Load(); err != nil {
			b.Fatal(err)
		}
		if len(got.People) != 300000 {
			b.Fatalf("%d people", len(got.People))
		}
	}
	// What a loaded state keeps: the live heap with the last one held.
	b.StopTimer()
	s = nil
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/1e6, "heap-MB")
	runtime.KeepAlive(got)
}

func BenchmarkSave300k(b *testing.B) {
	s := statetest.BigState(b, 5000, 60)
	store := NewStore(filepath.Join(b.TempDir(), ".leadsync", "state.json"))
	b.ResetTimer()
	defer statetest.CPUMetric(b)()
	for i := 0; i < b.N; i++ {
		if err := store.Save(s); err != nil {
			b.Fatal(err)
		}
	}
}

// A track read that finds a new job: its journal line (synced) and its
// fold, which appends to the person's history. The cost must not grow
// with the state: the same figure at 1,000 and 300,000 people.
//
//	go test ./internal/state/local -run '^$' -bench AppendTrackChange -benchtime 2000x
func BenchmarkAppendTrackChange(b *testing.B) {
	for _, people := range []int{1000, 300000} {
		b.Run(fmt.Sprintf("people=%d", people), func(b *testing.B) {
			s := statetest.BigState(b, max(1, people/60), 60)
			store := NewStore(filepath.Join(b.TempDir(), ".leadsync", "state.json"))
			j, err := store.OpenJournal(s)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			ids := make([]string, 0, 4096)
			for id := range s.People {
				if len(ids) == cap(ids) {
					break
				}
				ids = append(ids, id)
			}
			at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e := statetest.TrackChange(at.Add(time.Duration(i)*time.Second), ids[i%len(ids)], i)
				if err := j.Append(&e); err != nil {
					b.Fatal(err)
				}
				if err := s.Fold(e); err != nil {
					b.Fatal(err)
				}
				if len(s.LastDrifts()) != 1 {
					b.Fatalf("the read recorded %d changes, want 1", len(s.LastDrifts()))
				}
			}
		})
	}
}

// What a claim costs an apply: each enrichment is claimed across the
// workspaces before it is sent and released once recorded (claims.go),
// here with another workspace's apply holding claims at the same time, so
// that each release is kept for it. One op is one claim and one release.
//
//	go test ./internal/state/local -run '^$' -bench ClaimRelease -benchtime 500x -count 3
func BenchmarkClaimRelease(b *testing.B) {
	set := NewWorkspaces(filepath.Join(b.TempDir(), ".leadsync", "state.json"), nil)
	for _, name := range []string{"dach", "uk"} {
		if err := set.CreateWorkspace(name); err != nil {
			b.Fatal(err)
		}
	}
	dach, err := set.Open("dach")
	if err != nil {
		b.Fatal(err)
	}
	uk, err := set.Open("uk")
	if err != nil {
		b.Fatal(err)
	}
	c, err := dach.Claims("acct")
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	other, err := uk.Claims("acct")
	if err != nil {
		b.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Claim([]string{"n:other", "p:other"}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	defer statetest.CPUMetric(b)()
	for i := 0; i < b.N; i++ {
		keys := []string{fmt.Sprintf("n:%d", i), fmt.Sprintf("p:page-%d", i)}
		got, err := c.Claim(keys)
		if err != nil || !got.Held {
			b.Fatalf("claim %d: %+v %v", i, got, err)
		}
		if err := c.Release(keys, true); err != nil {
			b.Fatal(err)
		}
	}
}

// A completed call's commit in the SQLite database (state.db, the
// default): one transaction that records the call's event and writes the
// rows the call before it changed (a track read's person and history row,
// an enrichment's person and enrichment row), synced (synchronous=FULL).
// The cost must not grow with the state: the same figure at 1,000 and
// 300,000 people. The JSON store's journal line is AppendTrackChange.
//
//	go test ./internal/state/local -run '^$' -bench DBAppend -benchtime 2000x -count 3
func BenchmarkDBAppend(b *testing.B) {
	for _, people := range []int{1000, 300000} {
		s := statetest.BigState(b, max(1, people/60), 60)
		path := filepath.Join(b.TempDir(), ".leadsync", "state.db")
		must(b, NewStore(path).Save(s))
		for _, kind := range []string{"track", "enrich"} {
			b.Run(fmt.Sprintf("people=%d/%s", people, kind), func(b *testing.B) {
				benchDBAppend(b, path, kind)
			})
		}
	}
}

func benchDBAppend(b *testing.B, path, kind string) {
	store := NewStore(path)
	defer store.Close()
	s, err := store.Load()
	must(b, err)
	rec, err := store.AsBackend().OpenJournal(s)
	must(b, err)
	ids := make([]string, 0, 4096)
	for id := range s.People {
		if len(ids) == cap(ids) {
			break
		}
		ids = append(ids, id)
	}
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	b.ResetTimer()
	defer statetest.CPUMetric(b)()
	for i := 0; i < b.N; i++ {
		id := ids[i%len(ids)]
		e := statetest.TrackChange(at.Add(time.Duration(i)*time.Second), id, i)
		if kind == "enrich" {
			e = statetest.EnrichEv(at.Add(time.Duration(i)*time.Second), "enrich.contacts", id,
				person.EnrichedProfile{NetworkID: id, Email: fmt.Sprintf("p%d@example.com", i), ValidationStatus: person.StatusValid, CreditBalance: 1000 - i})
		}
		if err := rec.Append(&e); err != nil {
			b.Fatal(err)
		}
		if err := s.Fold(e); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	must(b, rec.Close())
	must(b, store.Commit(s))
}

// appendState names a state database of any size (a copy: the benchmark
// records calls into it) for BenchmarkDBAppendTo.
var appendState = flag.String("append-state", "", "a copy of a state database for BenchmarkDBAppendTo (it is written to)")

// BenchmarkDBAppendTo is DBAppend on the database -append-state names: a
// commit's cost at the size of a state bench/bigplan wrote, 3,000,000
// people for instance (its load takes a while and several GB):
//
//	go run ./bench/bigplan -out /tmp/bp3m -searches 10000 -people 3000000
//	cp /tmp/bp3m/.leadsync/state.db /tmp/append.db
//	go test ./internal/state/local -run '^$' -bench DBAppendTo -benchtime 1000x -append-state /tmp/append.db
func BenchmarkDBAppendTo(b *testing.B) {
	if *appendState == "" {
		testenv.Skip(b, "-append-state names no state database")
	}
	for _, kind := range []string{"track", "enrich"} {
		b.Run(kind, func(b *testing.B) { benchDBAppend(b, *appendState, kind) })
	}
}

// Load and Save of the 300,000-person state in the SQLite database, as
// Load300k and Save300k of the JSON file.
//
//	go test ./internal/state/local -run '^$' -bench 'DB(Load|Save)300k' -benchmem -benchtime 3x
func BenchmarkDBLoad300k(b *testing.B) {
	s := statetest.BigState(b, 5000, 60)
	store := NewStore(filepath.Join(b.TempDir(), ".leadsync", "state.db"))
	must(b, store.Save(s))
	b.ResetTimer()
	defer statetest.CPUMetric(b)()
	if fi, err := os.Stat(store.Path()); err == nil {
		defer b.ReportMetric(float64(fi.Size())/1e6, "MB-file")
	}
	for i := 0; i < b.N; i++ {
		got, err := store.Load()
		must(b, err)
		if len(got.People) != 300000 {
			b.Fatalf("%d people", len(got.People))
		}
	}
}

func BenchmarkDBSave300k(b *testing.B) {
	s := statetest.BigState(b, 5000, 60)
	store := NewStore(filepath.Join(b.TempDir(), ".leadsync", "state.db"))
	b.ResetTimer()
	defer statetest.CPUMetric(b)()
	for i := 0; i < b.N; i++ {
		must(b, store.Save(s))
	}
}
