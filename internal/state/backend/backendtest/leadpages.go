package backendtest

import (
	"slices"
	"testing"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// testLeadPages checks a Base's people read with some lead fields alone
// (state.LeadPager: what the console's where on lead.<field> reads)
// against the people read whole: every person once, in ID order, across
// pages of two, holding those fields as read whole and no other.
func testLeadPages(t *testing.T, k Kind) {
	whole, got := storedOfEvents(t, k)
	got.SetPage(2)
	var keys []string // every field a where reads, as testSketchLeads
	for _, f := range person.LeadFields {
		if f.Where {
			keys = append(keys, f.Key)
		}
	}
	fields, err := state.SketchFields(keys)
	must(t, err, "sketch fields")
	var ids []string
	err = got.EachLead(keys, func(p *state.Person) error {
		ids = append(ids, p.ID)
		w := whole.People[p.ID]
		if w == nil {
			t.Fatalf("%s read with its lead fields is no person", p.ID)
		}
		var want person.Lead
		state.CopyLeadFields(&want, &w.Lead, fields)
		if p.Lead != want || p.Enrichment != nil {
			t.Fatalf("%s read with %v: %+v (enrichment %v), want %+v alone", p.ID, keys, p.Lead, p.Enrichment, want)
		}
		return nil
	})
	must(t, err, "each lead")
	want := slices.Sorted(func(yield func(string) bool) {
		for id := range whole.People {
			if !yield(id) {
				return
			}
		}
	})
	if !slices.Equal(ids, want) || len(ids) < 3 {
		t.Fatalf("read %q, want every person once in ID order: %q", ids, want)
	}
}
