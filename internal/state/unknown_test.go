package state

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
)

func unknownEv(addr, id, msg string) Event {
	return Event{At: day(1), Kind: EventEnrichUnknown, Address: addr,
		Enrich: &EnrichEvent{PersonID: id, Credits: 1}, Failure: &Failure{Message: msg}}
}

// TestUnknownEnrichmentIsKept: an enrichment whose outcome is unknown is
// recorded (journal, replay, state file), counted as credits that may have
// been charged, charged to its block, and resolved by the next enrichment of
// the person.
func TestUnknownEnrichmentIsKept(t *testing.T) {
	st, _ := newStore(t)
	s, err := st.Load()
	must(t, err)
	events := append(demoEvents()[:4], unknownEv("enrich.e", "n2", "enrich: network error: connection reset"))
	j := run(t, st, s, events...)
	_ = j // crash: replay from the journal

	got, err := NewStore(st.Path()).Load()
	must(t, err)
	if d := cmp.Diff(s, got, cmpState, cmpTime); d != "" {
		t.Errorf("replayed state differs from the live one:\n%s", d)
	}
	u := got.UnknownEnrichments["n2"]
	if u == nil || u.By != "enrich.e" || u.Credits != 1 || u.Message == "" {
		t.Fatalf("unknown enrichment of n2 = %+v", u)
	}
	if got.Usage.CreditsSpent != 1 || got.Usage.CreditsUnknown != 1 {
		t.Errorf("credits spent %d, unknown %d; want 1 and 1", got.Usage.CreditsSpent, got.Usage.CreditsUnknown)
	}
	if ids := got.UnknownBy("enrich.e"); len(ids) != 1 || ids[0] != "n2" {
		t.Errorf("UnknownBy = %v", ids)
	}

	// Saved and loaded again: the state file keeps it.
	must(t, st.Save(got))
	again, err := NewStore(st.Path()).Load()
	must(t, err)
	if d := cmp.Diff(got.UnknownEnrichments, again.UnknownEnrichments, cmpTime); d != "" {
		t.Errorf("the state file lost the unknown enrichment:\n%s", d)
	}

	// Enriched at last: the unknown outcome is resolved, the credits of
	// the unknown one stay counted as possibly charged.
	must(t, again.Apply(enrichEv(day(2), "enrich.e", "n2", api.EnrichedProfile{NetworkID: "n2", Email: "b@x.io"})))
	if len(again.UnknownEnrichments) != 0 || len(again.UnknownBy("enrich.e")) != 0 {
		t.Errorf("unknown enrichments after the person was enriched: %v", again.UnknownEnrichments)
	}
	if again.Usage.CreditsSpent != 2 || again.Usage.CreditsUnknown != 1 {
		t.Errorf("credits spent %d, unknown %d; want 2 and 1", again.Usage.CreditsSpent, again.Usage.CreditsUnknown)
	}
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
		must(t, s.Apply(e))
	}
	pending := func(id string) Event {
		return Event{At: day(1), Kind: EventEnrichPending, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: id, Credits: 1}}
	}
	must(t, s.Apply(pending("n2")))
	must(t, s.Apply(pending("page:carl")))
	if ids := s.UnknownBy("enrich.e"); len(ids) != 2 {
		t.Fatalf("UnknownBy = %v, want both pending people", ids)
	}
	if s.Usage.CreditsUnknown != 0 {
		t.Errorf("pending enrichments counted %d unknown credits; no run saw them fail", s.Usage.CreditsUnknown)
	}
	must(t, s.Apply(Event{At: day(1), Kind: EventEnrichVoid, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: "page:carl", Credits: 1}}))
	must(t, s.Apply(enrichEv(day(1), "enrich.e", "n2", api.EnrichedProfile{NetworkID: "n2", Email: "b@x.io"})))
	if len(s.UnknownEnrichments) != 0 {
		t.Errorf("unknown enrichments left: %v", s.UnknownEnrichments)
	}
}

// TestErasureDropsUnknownEnrichments: forgetting a person also drops their
// enrichment with an unknown outcome (its message may name them).
func TestErasureDropsUnknownEnrichments(t *testing.T) {
	s := New()
	for _, e := range demoEvents()[:4] {
		must(t, s.Apply(e))
	}
	must(t, s.Apply(unknownEv("enrich.e", "n2", `enrich: answer for another person: asked for "bob"`)))
	must(t, s.Apply(Event{At: day(2), Kind: EventForgetPeople, Address: PeopleAddress, People: &ForgetPeopleEvent{
		Reason: ForgetErasure, PersonIDs: []string{"n2"}, Keys: IdentifierKeys("bob")}}))
	if len(s.UnknownEnrichments) != 0 {
		t.Errorf("unknown enrichments of an erased person are kept: %v", s.UnknownEnrichments)
	}
}
