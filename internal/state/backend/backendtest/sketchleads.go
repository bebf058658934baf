package backendtest

import (
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// testSketchLeads checks a Base's sketches given lead fields
// (state.LeadSketcher: what a plan of enrich blocks with a where reads of
// the people of stale enrichments) against the people read whole: every
// lead field a where reads, a person the store does not hold left as it
// was.
func testSketchLeads(t *testing.T, k Kind) {
	whole, got := storedOfEvents(t, k)
	var keys []string
	for _, f := range person.LeadFields {
		if f.Where {
			keys = append(keys, f.Key)
		}
	}
	fields, err := state.SketchFields(keys)
	must(t, err, "sketch fields")
	by, err := got.Enrichers()
	must(t, err, "enrichers")
	var ps []*state.Person
	for _, addr := range by {
		found, err := got.Sketched(addr, time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
		must(t, err, "sketches")
		ps = append(ps, found...)
	}
	none := &state.Person{ID: "no such person"}
	none.Lead.Company = "kept"
	must(t, got.SketchLeads(append(ps, none), keys), "sketch leads")
	filled := 0
	for _, p := range ps {
		w := whole.People[p.ID]
		for _, f := range fields {
			if g, want := *f.Lead(&p.Lead), *f.Lead(&w.Lead); g != want {
				t.Fatalf("%s of the sketch of %s: %q, read whole %q", f.Key, p.ID, g, want)
			}
			if *f.Lead(&p.Lead) != "" && f.Key == "company" {
				filled++
			}
		}
	}
	if none.Lead.Company != "kept" || none.Lead.Title != "" {
		t.Fatalf("a person the store does not hold was given %+v", none.Lead)
	}
	if len(ps) == 0 || filled == 0 {
		t.Fatalf("%d sketches, %d with a company: the fixture no longer tests SketchLeads", len(ps), filled)
	}
}
