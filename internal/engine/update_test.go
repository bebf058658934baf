package engine_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

// replay applies the journal's events to a new state: what a load after
// a kill gives.
func replay(t *testing.T, st *state.State, j *memJournal) *state.State {
	t.Helper()
	r := state.New()
	r.Lineage = st.Lineage
	for _, e := range j.events {
		if err := r.Fold(e); err != nil {
			t.Fatalf("replaying %s %s: %v", e.Kind, e.Address, err)
		}
	}
	return r
}

// A lowered max_results: apply journals the cut before any call, and the
// enrich block enriches only the leads kept.
func TestRunCutsKeptLeadsWithoutACall(t *testing.T) {
	const src = `
api {
  sandbox     = true
  max_credits = 1000
}
search "eng" {
  keywords    = "engineer"
  max_results = %d
}
%s`
	cfg := load(t, strings.Replace(strings.Replace(src, "%d", "7", 1), "%s", "", 1))
	st := state.New()
	svc := newFake()
	svc.perQuery = 7
	j := &memJournal{}
	run(t, cfg, st, build(t, cfg, st), svc, j, nil)
	if n := len(st.Searches["search.eng"].LeadIDs); n != 7 {
		t.Fatalf("first run kept %d", n)
	}
	first := st.Searches["search.eng"].LeadIDs

	cfg = load(t, strings.Replace(strings.Replace(src, "%d", "3", 1), "%s", "enrich \"e\" {\n  from = [search.eng]\n}", 1))
	p := build(t, cfg, st)
	if c := p.Change("search.eng"); c.Action != plan.Update || c.Reason != plan.ReasonMaxResultsLowered {
		t.Fatalf("plan: %+v", c)
	}
	if c := p.Change("enrich.e"); c.Calls != 3 || c.CallsMax != 3 {
		t.Fatalf("enrich planned %d..%d, want 3", c.Calls, c.CallsMax)
	}
	before := len(svc.calls)
	sum := run(t, cfg, st, p, svc, j, nil)
	if got := svc.count("search:"); got != 1 {
		t.Errorf("searches = %d, want only the first run's", got)
	}
	if got := len(svc.calls) - before; got != 3 {
		t.Errorf("%d calls, want the 3 enrichments", got)
	}
	if !cmp.Equal(sum.Updated, []string{"search.eng"}) {
		t.Errorf("summary updated %v", sum.Updated)
	}
	rec := st.Searches["search.eng"]
	if !cmp.Equal(rec.LeadIDs, first[:3]) || rec.MaxResults != 3 {
		t.Errorf("kept %v (max_results %d), want %v", rec.LeadIDs, rec.MaxResults, first[:3])
	}
	for _, id := range first {
		p := st.People[id]
		if p == nil {
			t.Fatalf("%s left the state", id)
		}
		kept := slices.Contains(first[:3], id)
		if (p.Enrichment != nil) != kept || slices.Contains(p.FoundBy, "search.eng") != kept {
			t.Errorf("%s: enriched %v, found by %v; kept %v", id, p.Enrichment != nil, p.FoundBy, kept)
		}
	}
	// The cut is journaled before the first enrichment.
	var kinds []state.EventKind
	for _, e := range j.events {
		kinds = append(kinds, e.Kind)
	}
	trim := slices.Index(kinds, state.EventTrim)
	if trim < 0 || trim > slices.Index(kinds, state.EventEnrichPending) {
		t.Errorf("journal order %v: the trim must come before the enrichments", kinds)
	}
	if d := cmp.Diff(st.Searches, replay(t, st, j).Searches); d != "" {
		t.Errorf("a replay of the journal differs:\n%s", d)
	}
	if p := build(t, cfg, st); p.HasChanges() {
		t.Errorf("changes left after the cut: %+v", p.Changes)
	}
}

const sharedProfiles = `
api {
  sandbox     = true
  max_credits = 1000
}
profile "advisor" {
  profile_url = "https://network.example/profile/Erika_Musterfrau"
}
profile "founder" {
  for_each  = { erika = "ERIKA_MUSTERFRAU" }
  page_name = each.value
}
enrich "e" {
  from = [profile.founder]
}
`

// Two profile blocks of one person: one read, recorded under both
// addresses (journaled, so a replay agrees), and the enrich block that
// reads the second waits for it.
func TestRunSharesAProfileRead(t *testing.T) {
	cfg := load(t, sharedProfiles)
	st := state.New()
	p := build(t, cfg, st)
	if c := p.Change(`profile.founder["erika"]`); c.Action != plan.Update || c.SameAs != "profile.advisor" {
		t.Fatalf("plan: %+v", c)
	}
	svc := newFake()
	j := &memJournal{}
	sum := run(t, cfg, st, p, svc, j, nil)
	if got := svc.count("page:"); got != 1 {
		t.Errorf("profile reads = %d, want 1", got)
	}
	if got := svc.count("enrich:"); got != 1 {
		t.Errorf("enrichments = %d, want 1", got)
	}
	a, f := st.Profiles["profile.advisor"], st.Profiles[`profile.founder["erika"]`]
	if a == nil || f == nil || a.PersonID == "" || f.PersonID != a.PersonID || !f.ReadAt.Equal(a.ReadAt) {
		t.Fatalf("records: advisor %+v, founder %+v", a, f)
	}
	if got := st.People[a.PersonID].FoundBy; !cmp.Equal(got, []string{"profile.advisor", `profile.founder["erika"]`}) {
		t.Errorf("found_by %v", got)
	}
	if !cmp.Equal(sum.Updated, []string{`profile.founder["erika"]`}) || sum.Failed() {
		t.Errorf("summary: updated %v, failures %+v", sum.Updated, sum.Failures)
	}
	if d := cmp.Diff(st.Profiles, replay(t, st, j).Profiles); d != "" {
		t.Errorf("a replay of the journal differs:\n%s", d)
	}
	if p := build(t, cfg, st); p.HasChanges() {
		t.Errorf("changes left: %+v", p.Changes)
	}

	// Killed after the read was journaled, before the share: the next plan
	// shares the read state holds, and apply records it without a call.
	cut := 0
	for i, e := range j.events {
		if e.Kind == state.EventProfile {
			cut = i + 1
		}
	}
	st2 := replay(t, st, &memJournal{events: j.events[:cut]})
	p2 := build(t, cfg, st2)
	if c := p2.Change(`profile.founder["erika"]`); c.Action != plan.Update || c.SameAs != "profile.advisor" || !strings.Contains(c.Detail, "no call") {
		t.Fatalf("plan after the kill: %+v", c)
	}
	if p2.Totals.Profiles != 0 {
		t.Errorf("plan after the kill reads %d profiles", p2.Totals.Profiles)
	}
	svc2 := newFake()
	run(t, cfg, st2, p2, svc2, &memJournal{}, nil)
	if svc2.count("page:") != 0 || st2.Profiles[`profile.founder["erika"]`] == nil {
		t.Errorf("after the kill: %d reads, record %+v", svc2.count("page:"), st2.Profiles[`profile.founder["erika"]`])
	}
}

// When the read fails, nothing is shared: the next plan plans both again.
func TestRunSharesNothingWhenTheReadFails(t *testing.T) {
	cfg := load(t, sharedProfiles)
	st := state.New()
	svc := newFake()
	svc.fail["page:"] = &api.Error{Kind: api.KindInvalid, Status: 400, Message: "bad page"}
	sum := run(t, cfg, st, build(t, cfg, st), svc, &memJournal{}, nil)
	if len(st.Profiles) != 0 || len(sum.Updated) != 0 || !sum.Failed() {
		t.Errorf("profiles %v, updated %v, failures %+v", st.Profiles, sum.Updated, sum.Failures)
	}
	if svc.count("enrich:") != 0 {
		t.Errorf("enriched without a read")
	}
	p := build(t, cfg, st)
	if c := p.Change("profile.advisor"); c.Action != plan.Read {
		t.Errorf("advisor: %+v", c)
	}
	if c := p.Change(`profile.founder["erika"]`); c.Action != plan.Update || c.SameAs != "profile.advisor" {
		t.Errorf("founder: %+v", c)
	}
}
