package local

import (
	"os"
	"path/filepath"
	"testing"

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
