package statefile

import (
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

func TestSearchRunsAreCountedAndKept(t *testing.T) {
	s := state.New()
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for i := 0; i < 3; i++ {
		ev := state.Event{At: at.Add(time.Duration(i) * time.Hour), Kind: state.EventSearch, Address: "search.a", Search: &state.SearchEvent{
			Generation: api.Gen1, Request: []byte(`{"keywords":"CTO"}`),
			Leads: []person.Lead{{FullName: "Ann", NetworkID: "1.a", PageName: "Ann"}},
		}}
		if err := s.Fold(ev); err != nil {
			t.Fatal(err)
		}
		if got := s.Searches["search.a"].Runs; got != i+1 {
			t.Fatalf("after run %d: Runs = %d", i+1, got)
		}
	}
	back, err := Decode("state.json", encode(t, s))
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Searches["search.a"].Runs; got != 3 {
		t.Errorf("Runs after an encode and decode = %d, want 3", got)
	}
}
