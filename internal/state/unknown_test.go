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
	must(t, again.Fold(enrichEv(day(2), "enrich.e", "n2", api.EnrichedProfile{NetworkID: "n2", Email: "b@x.io"})))
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
	must(t, s.Fold(enrichEv(day(1), "enrich.e", "n2", api.EnrichedProfile{NetworkID: "n2", Email: "b@x.io"})))
	if len(s.UnknownEnrichments) != 0 {
		t.Errorf("unknown enrichments left: %v", s.UnknownEnrichments)
	}
	if s.Usage.CreditsUnknown != 0 || s.Usage.CreditsSpent != 2 {
		t.Errorf("after the outcomes: credits unknown %d, spent %d; want 0 and 2", s.Usage.CreditsUnknown, s.Usage.CreditsSpent)
	}
}

// TestUnknownCreditsCountedOnce: every enrichment whose outcome is unknown
// counts once in Usage.CreditsUnknown ("may have been charged", all runs),
// whether a run saw it fail or was killed with it in flight; a call whose
// outcome is known (charged, or certainly not) does not count; a later
// enrichment of the person resolves the unknown one but its credits stay
// counted (it may have been charged all the same).
func TestUnknownCreditsCountedOnce(t *testing.T) {
	pending := Event{At: day(1), Kind: EventEnrichPending, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: "n2", Credits: 1}}
	void := Event{At: day(1), Kind: EventEnrichVoid, Address: "enrich.e", Enrich: &EnrichEvent{PersonID: "n2", Credits: 1}}
	unknown := unknownEv("enrich.e", "n2", "enrich: network error: connection reset")
	enriched := enrichEv(day(1), "enrich.e", "n2", api.EnrichedProfile{NetworkID: "n2", Email: "b@x.io"})
	forget := Event{At: day(2), Kind: EventForgetPeople, Address: PeopleAddress, People: &ForgetPeopleEvent{
		Reason: ForgetErasure, PersonIDs: []string{"n2"}, Keys: IdentifierKeys("bob")}}
	for _, tc := range []struct {
		name string
		// runs are the journals of successive runs; each is replayed from
		// the journal (as after a kill) before the next starts.
		runs         [][]Event
		unknown      int
		spent        int
		left, isPend bool // an unknown enrichment of n2 is left; still pending
	}{
		{name: "killed in flight", runs: [][]Event{{pending}}, unknown: 1, left: true, isPend: true},
		{name: "charged", runs: [][]Event{{pending, enriched}}, spent: 1},
		{name: "certainly not charged", runs: [][]Event{{pending, void}}},
		{name: "failed, outcome unknown", runs: [][]Event{{pending, unknown}}, unknown: 1, left: true},
		{name: "unknown without a pending note (older journal)", runs: [][]Event{{unknown}}, unknown: 1, left: true},
		{name: "killed, then enriched next run", runs: [][]Event{{pending}, {pending, enriched}}, unknown: 1, spent: 1},
		{name: "killed, then void next run", runs: [][]Event{{pending}, {pending, void}}, unknown: 1},
		{name: "killed, then unknown next run", runs: [][]Event{{pending}, {pending, unknown}}, unknown: 2, left: true},
		{name: "killed twice", runs: [][]Event{{pending}, {pending}}, unknown: 2, left: true, isPend: true},
		{name: "unknown, then enriched next run", runs: [][]Event{{pending, unknown}, {pending, enriched}}, unknown: 1, spent: 1},
		{name: "killed, then erased", runs: [][]Event{{pending}, {forget}}, unknown: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, _ := newStore(t)
			s, err := st.Load()
			must(t, err)
			j := run(t, st, s, demoEvents()[:4]...)
			must(t, j.Close())
			for _, r := range tc.runs {
				// Each run is a process of its own, killed at its end: the
				// journal is left, never committed.
				ns := NewStore(st.Path())
				s, err = ns.Load()
				must(t, err)
				must(t, run(t, ns, s, r...).Close())
			}
			got, err := NewStore(st.Path()).Load()
			must(t, err)
			// demoEvents enrich n1: one credit spent before.
			if got.Usage.CreditsUnknown != tc.unknown || got.Usage.CreditsSpent != 1+tc.spent {
				t.Errorf("credits unknown %d, spent %d; want %d and %d", got.Usage.CreditsUnknown, got.Usage.CreditsSpent-1, tc.unknown, tc.spent)
			}
			u := got.UnknownEnrichments["n2"]
			if (u != nil) != tc.left || (u != nil && u.Pending != tc.isPend) {
				t.Errorf("unknown enrichment of n2: %+v; want left %v, pending %v", u, tc.left, tc.isPend)
			}
		})
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
