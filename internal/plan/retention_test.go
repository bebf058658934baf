package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// TestRetention: people no search has seen for the retention period are
// one forget change, first; enrich blocks leave them out, and their
// enrichments keep their places under the limit (the credits were spent);
// a targeted plan removes nobody.
func TestRetention(t *testing.T) {
	f := newFixture()
	f.cfg.Settings.Retention = 180 * day
	f.search("search.old", kw("CTO"))
	f.search("search.new", kw("CEO"))
	f.ran("search.old", t0.Add(-200*day), "a", "b")
	f.ran("search.new", t0.Add(-10*day), "b", "c", "d")
	e := f.enrich("contacts", []string{"search.old", "search.new"}, 2, 0)
	f.enriched("a", e.Address, t0.Add(-200*day))

	p := f.build(t, f.opts())
	first := p.Changes[0]
	if first.Address != state.PeopleAddress || first.Kind != kind.People || first.Action != Forget || first.Reason != ReasonRetention {
		t.Fatalf("first change = %+v, want the retention forget", first)
	}
	if !cmp.Equal(first.PersonIDs, []string{"a"}) || first.Calls != 0 || first.Credits != 0 {
		t.Errorf("retention change = %+v, want person a only (b was seen 10 days ago), no calls", first)
	}
	if first.Detail != "1 person not seen by any search for 180d (retention) leaves the state with their enrichments" {
		t.Errorf("detail = %q", first.Detail)
	}
	if p.Totals.Forgets != 1 {
		t.Errorf("forgets = %d", p.Totals.Forgets)
	}
	// a held one of the limit's two places; gone, a still holds it: one
	// place is left.
	en := p.Change(e.Address)
	if !cmp.Equal(en.PersonIDs, []string{"b"}) {
		t.Errorf("enrich people = %q, want b alone (a is removed, its enrichment still counts)", en.PersonIDs)
	}
	if want := "1 person; limit 2, 1 used"; en.Detail != want {
		t.Errorf("enrich detail = %q, want %q", en.Detail, want)
	}
	// Apply removes a first; EnrichCandidatesClaimed then agrees with the plan.
	if err := f.st.Fold(state.Event{At: t0, Kind: state.EventForgetPeople, Address: state.PeopleAddress,
		People: &state.ForgetPeopleEvent{Reason: state.ForgetRetention, PersonIDs: first.PersonIDs}}); err != nil {
		t.Fatal(err)
	}
	got, err := EnrichCandidatesClaimed(f.cfg, f.st, e, t0, nil)
	if err != nil || !cmp.Equal(got, en.PersonIDs) {
		t.Errorf("EnrichCandidatesClaimed after the forget = %q, %v; the plan said %q", got, err, en.PersonIDs)
	}
	if p2 := f.build(t, f.opts()); p2.Change(state.PeopleAddress) != nil {
		t.Errorf("after the forget the plan still removes people: %+v", p2.Change(state.PeopleAddress))
	}
}

func TestRetentionNotWithTargets(t *testing.T) {
	f := newFixture()
	f.cfg.Settings.Retention = 30 * day
	f.search("search.old", kw("CTO"))
	f.ran("search.old", t0.Add(-200*day), "a")
	o := f.opts()
	o.Targets = []string{"search.old"}
	if c := f.build(t, o).Change(state.PeopleAddress); c != nil {
		t.Errorf("a targeted plan removes people: %+v", c)
	}
	f.cfg.Settings.Retention = 0
	if c := f.build(t, f.opts()).Change(state.PeopleAddress); c != nil {
		t.Errorf("no retention, yet people are removed: %+v", c)
	}
}

func TestPlanCountsSuppressed(t *testing.T) {
	f := newFixture()
	f.search("search.a", kw("CTO"))
	f.ran("search.a", t0, "a", "b")
	f.apply(state.Event{At: t0, Kind: state.EventForgetPeople, Address: state.PeopleAddress,
		People: &state.ForgetPeopleEvent{Reason: state.ForgetErasure, PersonIDs: []string{"a"}}})
	if p := f.build(t, f.opts()); p.Suppressed != 1 {
		t.Errorf("Suppressed = %d, want 1", p.Suppressed)
	}
}
