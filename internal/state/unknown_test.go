package state

import (
	"testing"

	"github.com/leadsync/leadsync/internal/person"
)

func unknownEv(addr, id, msg string) Event {
	return Event{At: day(1), Kind: EventEnrichUnknown, Address: addr,
		Enrich: &EnrichEvent{PersonID: id, Credits: 1}, Failure: &Failure{Message: msg}}
}

func TestUnknownEnrichmentEventValidation(t *testing.T) {
	for _, e := range []Event{
		{Kind: EventEnrichUnknown, Address: "enrich.e"},
		{Kind: EventEnrichUnknown, Address: "enrich.e", Enrich: &EnrichEvent{}},
		{Kind: EventEnrichUnknown, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: "n1", Credits: -1}},
		{Kind: EventEnrichUnknown, Enrich: &EnrichEvent{PersonID: "n1"}},
	} {
		if err := e.Validate(); err == nil {
			t.Errorf("%+v was accepted", e)
		}
	}
}

// TestPendingEnrichment: an enrichment noted pending and never completed
// (the run was killed with it in flight) is an unknown enrichment of its
// block; completed or voided, it is gone.
func TestPendingEnrichment(t *testing.T) {
	s := New()
	for _, e := range demoEvents()[:4] {
		must(t, s.Fold(e))
	}
	pending := func(id string) Event {
		return Event{At: day(1), Kind: EventEnrichPending, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: id, Credits: 1}}
	}
	must(t, s.Fold(pending("n2")))
	must(t, s.Fold(pending("page:carl")))
	if ids := s.UnknownBy("enrich.e"); len(ids) != 2 {
		t.Fatalf("UnknownBy = %v, want both pending people", ids)
	}
	if s.Usage.CreditsUnknown != 2 {
		t.Errorf("two pending enrichments count %d credits that may have been charged, want 2", s.Usage.CreditsUnknown)
	}
	must(t, s.Fold(Event{At: day(1), Kind: EventEnrichVoid, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: "page:carl", Credits: 1}}))
	must(t, s.Fold(enrichEv(day(1), "enrich.e", "n2", person.EnrichedProfile{NetworkID: "n2", Email: "b@x.io"})))
	if len(s.UnknownEnrichments) != 0 {
		t.Errorf("unknown enrichments left: %v", s.UnknownEnrichments)
	}
	if s.Usage.CreditsUnknown != 0 || s.Usage.CreditsSpent != 2 {
		t.Errorf("after the outcomes: credits unknown %d, spent %d; want 0 and 2", s.Usage.CreditsUnknown, s.Usage.CreditsSpent)
	}
}

// TestErasureDropsUnknownEnrichments: forgetting a person also drops their
// enrichment with an unknown outcome (its message may name them).
func TestErasureDropsUnknownEnrichments(t *testing.T) {
	s := New()
	for _, e := range demoEvents()[:4] {
		must(t, s.Fold(e))
	}
	must(t, s.Fold(unknownEv("enrich.e", "n2", `enrich: answer for another person: asked for "bob"`)))
	must(t, s.Fold(Event{At: day(2), Kind: EventForgetPeople, Address: PeopleAddress, People: &ForgetPeopleEvent{
		Reason: ForgetErasure, PersonIDs: []string{"n2"}, Keys: IdentifierKeys("bob")}}))
	if len(s.UnknownEnrichments) != 0 {
		t.Errorf("unknown enrichments of an erased person are kept: %v", s.UnknownEnrichments)
	}
}

// TestSetAsidePendingSince: the pending notes of the apply running now
// (written since it took the lock) are set aside with their credits; a
// pending note an earlier, killed run left, and an unknown outcome, stay.
func TestSetAsidePendingSince(t *testing.T) {
	s := New()
	for _, e := range demoEvents()[:4] {
		must(t, s.Fold(e))
	}
	pending := func(at int, id string) Event {
		return Event{At: day(at), Kind: EventEnrichPending, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: id, Credits: 1}}
	}
	must(t, s.Fold(pending(1, "n2")))                            // a killed run's
	must(t, s.Fold(unknownEv("enrich.e", "page:carl", "reset"))) // an outcome unknown
	must(t, s.Fold(pending(3, "n9")))                            // the running apply's
	must(t, s.Fold(pending(4, "n8")))
	n, credits := s.SetAsidePendingSince(day(2))
	if n != 2 || credits != 2 {
		t.Errorf("set aside %d (%d credits), want 2 (2)", n, credits)
	}
	if len(s.UnknownEnrichments) != 2 || s.UnknownEnrichments["n2"] == nil || s.UnknownEnrichments["page:carl"] == nil || s.Usage.CreditsUnknown != 2 {
		t.Errorf("left %v, %d credits unknown; want the killed run's note and the unknown outcome, 2 credits", s.UnknownEnrichments, s.Usage.CreditsUnknown)
	}
}
