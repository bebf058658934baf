package local

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestForgetThroughTheJournal: a forget recorded in the journal and not
// committed is replayed by the next load, and the suppression list
// survives a save and load.
func TestForgetThroughTheJournal(t *testing.T) {
	st, _ := newStore(t)
	s, err := st.Load()
	must(t, err)
	j := run(t, st, s, searchEv(day(0), "search.a", 0, lead("n1", "ann", "Ann"), lead("n2", "bob", "Bob")), eraseEv(day(1), nil, "n1"))
	_ = j // crash: no commit
	got, err := NewStore(st.Path()).Load()
	must(t, err)
	if d := cmp.Diff(s, got, cmpState, cmpTime); d != "" {
		t.Errorf("replayed state differs from the live one:\n%s", d)
	}
	must(t, NewStore(st.Path()).Commit(got))
	again, err := NewStore(st.Path()).Load()
	must(t, err)
	if len(again.Suppressed) != 1 || again.People["n1"] != nil || again.Searches["search.a"].Suppressed != 1 {
		t.Errorf("after save and load: suppressed %v, n1 %v, search %+v", again.Suppressed, again.People["n1"], again.Searches["search.a"])
	}
	if !again.IsSuppressed(person.Lead{PageName: "ANN"}) || again.IsSuppressed(person.Lead{NetworkID: "n2"}) {
		t.Error("IsSuppressed is wrong after load")
	}
}

// TestErasedEnrichmentsCount: the enrichments of people forgotten (erasure
// or retention) stay counted by the block that made them, an unknown
// outcome too, and the counts survive a save and load; people never
// enriched add nothing.
func TestErasedEnrichmentsCount(t *testing.T) {
	st, _ := newStore(t)
	s, err := st.Load()
	must(t, err)
	for _, ev := range []state.Event{
		searchEv(day(0), "search.a", 0, lead("n1", "ann", "Ann"), lead("n2", "bob", "Bob"), lead("n3", "cy", "Cy"), lead("n4", "di", "Di")),
		enrichEv(day(0), "enrich.a", "n1", person.EnrichedProfile{NetworkID: "n1", Email: "a@x.example"}),
		enrichEv(day(0), "enrich.b", "n2", person.EnrichedProfile{NetworkID: "n2", Email: "b@x.example"}),
		{At: day(0), Kind: state.EventEnrichUnknown, Address: "enrich.a", Enrich: &state.EnrichEvent{PersonID: "n3", Credits: 1}, Failure: &state.Failure{Message: "timeout"}},
		eraseEv(day(1), nil, "n1", "n4"),
		retentionEv(day(2), "n2", "n3"),
	} {
		must(t, s.Fold(ev))
	}
	want := map[string]int{"enrich.a": 2, "enrich.b": 1}
	if d := cmp.Diff(want, s.ErasedEnrichments); d != "" {
		t.Errorf("erased enrichments (-want +got):\n%s", d)
	}
	must(t, st.Commit(s))
	again, err := NewStore(st.Path()).Load()
	must(t, err)
	if d := cmp.Diff(want, again.ErasedEnrichments); d != "" {
		t.Errorf("after save and load (-want +got):\n%s", d)
	}
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
	must(t, again.Fold(enrichEv(day(2), "enrich.e", "n2", person.EnrichedProfile{NetworkID: "n2", Email: "b@x.io"})))
	if len(again.UnknownEnrichments) != 0 || len(again.UnknownBy("enrich.e")) != 0 {
		t.Errorf("unknown enrichments after the person was enriched: %v", again.UnknownEnrichments)
	}
	if again.Usage.CreditsSpent != 2 || again.Usage.CreditsUnknown != 1 {
		t.Errorf("credits spent %d, unknown %d; want 2 and 1", again.Usage.CreditsSpent, again.Usage.CreditsUnknown)
	}
}

// TestUnknownCreditsCountedOnce: every enrichment whose outcome is unknown
// counts once in Usage.CreditsUnknown ("may have been charged", all runs),
// whether a run saw it fail or was killed with it in flight; a call whose
// outcome is known (charged, or certainly not) does not count; a later
// enrichment of the person resolves the unknown one but its credits stay
// counted (it may have been charged all the same).
func TestUnknownCreditsCountedOnce(t *testing.T) {
	pending := state.Event{At: day(1), Kind: state.EventEnrichPending, Address: "enrich.e", Enrich: &state.EnrichEvent{PersonID: "n2", Credits: 1}}
	void := state.Event{At: day(1), Kind: state.EventEnrichVoid, Address: "enrich.e", Enrich: &state.EnrichEvent{PersonID: "n2", Credits: 1}}
	unknown := unknownEv("enrich.e", "n2", "enrich: network error: connection reset")
	enriched := enrichEv(day(1), "enrich.e", "n2", person.EnrichedProfile{NetworkID: "n2", Email: "b@x.io"})
	forget := state.Event{At: day(2), Kind: state.EventForgetPeople, Address: state.PeopleAddress, People: &state.ForgetPeopleEvent{
		Reason: state.ForgetErasure, PersonIDs: []string{"n2"}, Keys: state.IdentifierKeys("bob")}}
	for _, tc := range []struct {
		name string
		// runs are the journals of successive runs; each is replayed from
		// the journal (as after a kill) before the next starts.
		runs         [][]state.Event
		unknown      int
		spent        int
		left, isPend bool // an unknown enrichment of n2 is left; still pending
	}{
		{name: "killed in flight", runs: [][]state.Event{{pending}}, unknown: 1, left: true, isPend: true},
		{name: "charged", runs: [][]state.Event{{pending, enriched}}, spent: 1},
		{name: "certainly not charged", runs: [][]state.Event{{pending, void}}},
		{name: "failed, outcome unknown", runs: [][]state.Event{{pending, unknown}}, unknown: 1, left: true},
		{name: "unknown without a pending note (older journal)", runs: [][]state.Event{{unknown}}, unknown: 1, left: true},
		{name: "killed, then enriched next run", runs: [][]state.Event{{pending}, {pending, enriched}}, unknown: 1, spent: 1},
		{name: "killed, then void next run", runs: [][]state.Event{{pending}, {pending, void}}, unknown: 1},
		{name: "killed, then unknown next run", runs: [][]state.Event{{pending}, {pending, unknown}}, unknown: 2, left: true},
		{name: "killed twice", runs: [][]state.Event{{pending}, {pending}}, unknown: 2, left: true, isPend: true},
		{name: "unknown, then enriched next run", runs: [][]state.Event{{pending, unknown}, {pending, enriched}}, unknown: 1, spent: 1},
		{name: "killed, then erased", runs: [][]state.Event{{pending}, {forget}}, unknown: 1},
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
