package backendtest

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// testValueLists checks a Base's lists of what exclude blocks match
// people by (state.ValueLister: every person's ID, company, page name and
// network ID; every enrichment's person, company, e-mail and company
// domain) against the state read whole.
func testValueLists(t *testing.T, k Kind) {
	whole, want, got := basesOfEvents(t, k)
	defer got.Close()
	if _, stored := got.Whole(); stored || !got.ValuesListed() {
		t.Skip("the backend reads its state whole: it answers from memory")
	}
	rows := func(list func(func(a, b, c, d []byte)) error) []string {
		var out []string
		err := list(func(a, b, c, d []byte) {
			out = append(out, strings.Join([]string{string(a), string(b), string(c), string(d)}, "|"))
		})
		must(t, err, "the values")
		slices.Sort(out)
		return out
	}
	for _, l := range []struct {
		what       string
		want, got  func(func(a, b, c, d []byte)) error
		fromPeople bool
	}{
		{"the people's values", want.PeopleValues, got.PeopleValues, true},
		{"the enrichments' values", want.EnrichmentValues, got.EnrichmentValues, false},
	} {
		w, g := rows(l.want), rows(l.got)
		if d := cmp.Diff(w, g); d != "" {
			t.Fatalf("%s differ (-whole +base):\n%s", l.what, d)
		}
		n := 0
		for _, p := range whole.People {
			if l.fromPeople || p.Enrichment != nil {
				n++
			}
		}
		if len(g) != n || n == 0 {
			t.Fatalf("%s: %d rows of %d (none: the fixture no longer tests them)", l.what, len(g), n)
		}
	}
	emails := 0
	for _, p := range whole.People {
		if p.Enrichment != nil && p.Enrichment.Result.Email != "" && p.Lead.Company != "" {
			emails++
		}
	}
	if emails == 0 {
		t.Fatal("no person holds an e-mail and a company: the fixture no longer tests the values")
	}
}

var _ state.ValueLister = (*state.Base)(nil)
