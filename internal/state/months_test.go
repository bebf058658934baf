package state

import (
	"maps"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/person"
)

// TestCreditsByMonth: the credits of each enrichment count in the UTC
// month of its event, as they count in CreditsSpent; a copy of the state
// taken before keeps its own figures.
func TestCreditsByMonth(t *testing.T) {
	enrich := func(at time.Time, id string, credits int) Event {
		return Event{At: at, Kind: EventEnrich, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: id, Credits: credits,
			Result: person.EnrichedProfile{NetworkID: id, Email: id + "@example.com"}}}
	}
	s := New()
	must(t, s.Fold(enrich(time.Date(2026, 9, 30, 23, 59, 0, 0, time.UTC), "a", 1)))
	// 00:30 on 1 October in Berlin is still September in UTC.
	berlin := time.FixedZone("CEST", 2*3600)
	must(t, s.Fold(enrich(time.Date(2026, 10, 1, 0, 30, 0, 0, berlin), "b", 2)))
	before := s.Usage
	must(t, s.Fold(enrich(time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC), "c", 3)))
	must(t, s.Fold(enrich(time.Date(2026, 10, 2, 9, 0, 0, 0, time.UTC), "d", 0))) // not charged

	if want := map[string]int{"2026-09": 3, "2026-10": 3}; !maps.Equal(s.Usage.CreditsByMonth, want) {
		t.Errorf("credits by month %v, want %v", s.Usage.CreditsByMonth, want)
	}
	if s.Usage.CreditsSpent != 6 {
		t.Errorf("credits spent %d, want 6", s.Usage.CreditsSpent)
	}
	if want := map[string]int{"2026-09": 3}; !maps.Equal(before.CreditsByMonth, want) {
		t.Errorf("the copy taken before the October enrichment holds %v, want %v", before.CreditsByMonth, want)
	}
}
