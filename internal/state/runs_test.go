package state

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
)

func TestSearchRunsAreCountedAndKept(t *testing.T) {
	s := New()
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for i := 0; i < 3; i++ {
		ev := Event{At: at.Add(time.Duration(i) * time.Hour), Kind: EventSearch, Address: "search.a", Search: &SearchEvent{
			Generation: api.Gen1, Request: []byte(`{"keywords":"CTO"}`),
			Leads: []api.Lead{{FullName: "Ann", NetworkID: "1.a", PageName: "Ann"}},
		}}
		if err := s.Fold(ev); err != nil {
			t.Fatal(err)
		}
		if got := s.Searches["search.a"].Runs; got != i+1 {
			t.Fatalf("after run %d: Runs = %d", i+1, got)
		}
	}
	store := NewStore(filepath.Join(t.TempDir(), "state.json"))
	if err := store.Save(s); err != nil {
		t.Fatal(err)
	}
	back, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Searches["search.a"].Runs; got != 3 {
		t.Errorf("Runs after a save and load = %d, want 3", got)
	}
}
