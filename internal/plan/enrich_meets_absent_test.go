package plan

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// pageIDNamingNobody is a world whose lead list search.a holds an ID kept
// by page name ("page:paged") that names nobody: the person was re-keyed
// to a network ID by search.b's run, and the list not rewritten (their
// FoundBy lost). The whole state finds them by page name (State.Person),
// to enrich under enrich.all's limit, with five others.
func pageIDNamingNobody(t *testing.T) *fixture {
	t.Helper()
	f := newFixture()
	a := f.search("search.a", kw("CTO"))
	b := f.search("search.b", kw("CEO"))
	paged := person.Lead{FirstName: "P", LastName: "paged", FullName: "P paged", Title: "CTO", Company: "Co paged", PageName: "paged", Location: "Berlin, Germany"}
	var leads []person.Lead
	for _, id := range ids(1, 5) {
		leads = append(leads, lead(id))
	}
	f.ranLeads(a, t0.Add(-2*time.Hour), append(leads, paged))
	f.st.People[state.PagePrefix+"paged"].FoundBy = nil
	paged.NetworkID = "nw-paged"
	f.ranLeads(b, t0.Add(-time.Hour), []person.Lead{paged})
	f.enrich("all", []string{"search.a"}, 10, 30*day)
	if !slices.Contains(f.st.Searches["search.a"].LeadIDs, state.PagePrefix+"paged") || f.st.People[state.PagePrefix+"paged"] != nil {
		t.Fatalf("search.a's list %v: want page:paged naming nobody", f.st.Searches["search.a"].LeadIDs)
	}
	return f
}

// TestPageIDNamingNobodyNeedsEveryone: over a state read in part, a lead
// list's ID kept by page name that names nobody in the store makes the
// plan need everyone (pageRefs): the places walk, which takes people by
// ID, would not find the person the whole state's plan enriches.
func TestPageIDNamingNobodyNeedsEveryone(t *testing.T) {
	f := pageIDNamingNobody(t)
	o := Options{Now: t0, Offline: true, Targets: []string{"enrich.all"}}
	if r := planOfEnrich(t, 0, f, o); r.compared {
		t.Fatal("planned in part over page:paged, which names nobody in the store: want everyone read")
	}
	if p, _ := Build(f.cfg, f.st, o); p.Change("enrich.all").Calls != 6 {
		t.Fatalf("the whole state's plan: %+v, want 6 calls", p.Change("enrich.all"))
	}
}

// absentFails is a store that cannot tell which IDs name nobody.
type absentFails struct{ enrichMemStore }

func (absentFails) Absent([]string) ([]string, error) { return nil, errors.New("the store is gone") }

// TestPageIDsUnansweredFailThePlan: when the store cannot tell whether
// the IDs kept by page name name someone (pageRefs asks Absent), the plan
// over a state read in part says why (EnrichFacts.Err).
func TestPageIDsUnansweredFailThePlan(t *testing.T) {
	f := pageIDNamingNobody(t)
	o := Options{Now: t0, Offline: true, Targets: []string{"enrich.all"}}
	b := enrichBaseIn(f.st, absentFails{enrichMemStore{memStore{f.st}}})
	r, facts, ok, err := EnrichReadsOf(f.cfg, b.Records, o, b)
	if err != nil || !ok {
		t.Fatalf("EnrichReadsOf: %v, %v", ok, err)
	}
	st, err := r.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	facts.Fill(st)
	o.Enrich = facts
	Build(f.cfg, st, o)
	if err := facts.Err(); err == nil || err.Error() != "the store is gone" {
		t.Fatalf("the plan's error: %v, want the store's", err)
	}
}
