package state

import (
	"testing"

	"github.com/leadsync/leadsync/internal/person"
)

// TestMarkedEventFoldsOnce: a marked event folded a second time (its copy
// in a rescue file, after the backend stored it) changes nothing: the
// credits of an enrichment count once, the pending note it settles stays
// settled, a search's runs are not counted twice. An unmarked event, or
// one of another run or a later place, folds as always.
func TestMarkedEventFoldsOnce(t *testing.T) {
	s := New()
	for _, e := range demoEvents()[:4] {
		must(t, s.Fold(e))
	}
	mark := func(run string, seq uint64) *EventMark { return &EventMark{Run: run, Seq: seq} }
	pending := Event{At: day(1), Kind: EventEnrichPending, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: "n2", Credits: 1}, Mark: mark("r1", 1)}
	enrich := Event{At: day(1), Kind: EventEnrich, Address: "enrich.e", Mark: mark("r1", 2), Enrich: &EnrichEvent{PersonID: "n2", Credits: 1,
		Result: person.EnrichedProfile{NetworkID: "n2", PageName: "bea", Email: "bea@acme.example", ValidationStatus: person.StatusValid}}}
	search := searchEv(day(2), "search.a", 0, lead("n1", "ann", "Ann"))
	search.Mark = mark("r1", 3)
	must(t, s.Fold(pending))
	must(t, s.Fold(enrich))
	must(t, s.Fold(search))
	spent, runs := s.Usage.CreditsSpent, s.Searches["search.a"].Runs
	for _, e := range []Event{enrich, pending, search} {
		must(t, s.Fold(e))
	}
	if s.Searches["search.a"].Runs != runs {
		t.Errorf("search.a ran %d times, want %d: its result was folded twice", s.Searches["search.a"].Runs, runs)
	}
	if s.Usage.CreditsSpent != spent || s.Usage.CreditsUnknown != 0 || len(s.UnknownEnrichments) != 0 {
		t.Errorf("folded twice: %d credits spent (want %d), %d unknown (want 0), unknown %v", s.Usage.CreditsSpent, spent, s.Usage.CreditsUnknown, s.UnknownEnrichments)
	}
	if s.Marks["r1"] != 3 {
		t.Errorf("marks %v, want r1 at 3", s.Marks)
	}
	// Another run's event at the same place folds; so does an unmarked one.
	again := enrich
	again.Mark = mark("r2", 2)
	must(t, s.Fold(again))
	unmarked := enrich
	unmarked.Mark = nil
	must(t, s.Fold(unmarked))
	if s.Usage.CreditsSpent != spent+2 {
		t.Errorf("%d credits spent, want %d: an event of another run, and an unmarked one, fold", s.Usage.CreditsSpent, spent+2)
	}
	if s.Marks["r2"] != 2 || len(s.Marks) != 2 {
		t.Errorf("marks %v, want r1 at 3 and r2 at 2", s.Marks)
	}
}

// TestDropMarks keeps the marks of the runs named, and no empty map.
func TestDropMarks(t *testing.T) {
	s := New()
	s.Track()
	s.Marks = map[string]uint64{"a": 1, "b": 4}
	s.DropMarks(func(run string) bool { return run == "b" })
	if len(s.Marks) != 1 || s.Marks["b"] != 4 {
		t.Errorf("marks %v, want b only", s.Marks)
	}
	if !s.TakeChanges().Meta {
		t.Errorf("a dropped mark is no change for a backend that writes what changed")
	}
	s.DropMarks(func(string) bool { return false })
	if s.Marks != nil {
		t.Errorf("marks %v, want nil", s.Marks)
	}
}
