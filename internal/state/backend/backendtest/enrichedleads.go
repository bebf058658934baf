package backendtest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// testEnrichedLeadsAfter: a Base gives the ID, network ID and page name
// of its enriched people a page at a time (state.Base.EnrichedLeadsAfter:
// the keys another workspace's plan lists), two at a time from after each
// page's last ID, as the state read whole gives them.
func testEnrichedLeadsAfter(t *testing.T, k Kind) {
	whole, got := storedOfEvents(t, k)
	want := EnrichedLeadsInPages(t, state.NewBase(whole), 2)
	if len(want) < 2 {
		t.Fatalf("%d enriched people: the test pages none", len(want))
	}
	if d := cmp.Diff(want, EnrichedLeadsInPages(t, got, 2)); d != "" {
		t.Errorf("the store's pages differ (-whole +store):\n%s", d)
	}
}

// EnrichedLeadsInPages are the enriched people of b, n at a time
// (state.Base.EnrichedLeadsAfter), each as a lead of its network ID,
// page name and, in FullName, its ID.
func EnrichedLeadsInPages(t *testing.T, b *state.Base, n int) []person.Lead {
	t.Helper()
	var out []person.Lead
	for after := ""; ; {
		got, err := b.EnrichedLeadsAfter(after, n, func(p *state.Person) {
			out = append(out, person.Lead{FullName: p.ID, NetworkID: p.Lead.NetworkID, PageName: p.Lead.PageName})
			after = p.ID
		})
		must(t, err, "enriched leads after %q", after)
		if got > n {
			t.Fatalf("a page of %d, asked %d", got, n)
		}
		if got < n {
			return out
		}
	}
}
