package local

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statetest"
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
