package backendtest

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// testEnrichIndex checks a Base's answers to state.EnrichIndex (what a
// plan of an enrich block asks instead of every person: plan.EnrichReadsOf)
// against the state read whole: an enrich block's enrichments made up to a
// time (at it exactly, a nanosecond before, every one), its copies, the
// people who left and those without a page name, the enrichments
// among a list of people (SketchedAmong), the IDs alone of an enrich
// block's (EnrichedIDsBefore), and every enrichment (EnrichedAfter).
func testEnrichIndex(t *testing.T, k Kind) {
	whole, want, got := basesOfEvents(t, k)
	defer got.Close()
	if _, stored := got.Whole(); stored || !got.EnrichIndexed() {
		t.Skip("the backend reads its state whole: it answers from memory")
	}
	sorted := func(ids []string, err error) []string {
		must(t, err, "enrich index")
		slices.Sort(ids)
		return ids
	}
	answered := 0
	check := func(what string, w, g []string) {
		t.Helper()
		if d := cmp.Diff(w, g); d != "" {
			t.Fatalf("%s differ (-whole +base):\n%s", what, d)
		}
		answered += len(w)
	}
	for _, addr := range []string{"enrich.contacts", "enrich.dach", "enrich.nothing"} {
		for _, at := range []time.Time{At(4), At(5), At(5).Add(-time.Nanosecond), At(12), At(16).Add(time.Microsecond), At(99)} {
			answered += sameSketches(t, want, got, addr, at)
			wn, err := want.CountEnrichedBefore(addr, at)
			must(t, err, "count")
			gn, err := got.CountEnrichedBefore(addr, at)
			must(t, err, "count of the base")
			if wn != gn {
				t.Fatalf("the enrichments of %s up to %v: %d, the base counts %d", addr, at, wn, gn)
			}
		}
		wn, _ := want.CountEnrichedBefore(addr, time.Time{})
		gn, err := got.CountEnrichedBefore(addr, time.Time{})
		must(t, err, "count of the base")
		if wn != gn {
			t.Fatalf("every enrichment of %s: %d, the base counts %d", addr, wn, gn)
		}
		check("the copies of "+addr, sorted(want.CopiedBy(addr)), sorted(got.CopiedBy(addr)))
	}
	check("the people who left", sorted(want.Left()), sorted(got.Left()))
	check("the addresses enrichments were made by", sorted(want.Enrichers()), sorted(got.Enrichers()))
	check("the people without a page name", sorted(want.Pageless()), sorted(got.Pageless()))
	answered += sameSketchesAmong(t, whole, want, got)
	answered += sameEnrichments(t, whole, got)
	if answered == 0 {
		t.Fatal("every answer is empty: the fixture no longer tests the enrich index")
	}
}

// sameSketchesAmong checks the store's sketches of the enrichments among
// lists of people (every person, some twice, with IDs of nobody; half of
// them; none) against those of the people read whole, and returns how
// many there are.
func sameSketchesAmong(t *testing.T, whole *state.State, want, got *state.Base) int {
	t.Helper()
	all := slices.Sorted(maps.Keys(whole.People))
	lists := [][]string{append(slices.Clone(all), "nobody", all[0]), all[:len(all)/2], nil}
	byID := func(a, b *state.Person) int { return strings.Compare(a.ID, b.ID) }
	n, enriched := 0, 0
	for _, ids := range lists {
		ws, err := want.SketchedAmong(ids)
		must(t, err, "sketches among")
		gs, err := got.SketchedAmong(ids)
		must(t, err, "sketches among of the base")
		slices.SortFunc(ws, byID)
		slices.SortFunc(gs, byID)
		if d := cmp.Diff(ws, gs); d != "" {
			t.Fatalf("the sketches of the enrichments among %d people differ (-whole +base):\n%s", len(ids), d)
		}
		n += len(ws)
	}
	for _, p := range whole.People {
		if p.Enrichment != nil {
			enriched++
		}
	}
	if enriched == 0 || enriched == len(whole.People) {
		t.Fatalf("%d of %d people hold an enrichment: the fixture no longer tells the enriched from the others", enriched, len(whole.People))
	}
	return n
}

// sameSketches checks the store's sketches of the people of addr's
// enrichments up to at against state.Sketch of the people read whole, and
// returns how many there are.
func sameSketches(t *testing.T, want, got *state.Base, addr string, at time.Time) int {
	t.Helper()
	ws, err := want.Sketched(addr, at)
	must(t, err, "sketches")
	gs, err := got.Sketched(addr, at)
	must(t, err, "sketches of the base")
	byID := func(a, b *state.Person) int { return strings.Compare(a.ID, b.ID) }
	slices.SortFunc(ws, byID)
	slices.SortFunc(gs, byID)
	if d := cmp.Diff(ws, gs); d != "" {
		t.Fatalf("the sketches of the people of %s up to %v differ (-whole +base):\n%s", addr, at, d)
	}
	// Their IDs alone (EnrichedIDsBefore: the store's narrow list).
	ids, err := got.EnrichedIDsBefore(addr, at)
	must(t, err, "IDs before of the base")
	slices.Sort(ids)
	var wantIDs []string
	for _, p := range ws {
		wantIDs = append(wantIDs, p.ID)
	}
	if d := cmp.Diff(wantIDs, ids); d != "" {
		t.Fatalf("the IDs of the people of %s up to %v differ (-sketches +base):\n%s", addr, at, d)
	}
	return len(ws)
}

// appendedEnrichments reads the IDs of the people holding an enrichment
// in pages of n appended to one slice (AppendEnrichedAfter:
// state.EnrichmentPager) that holds "kept" first.
func appendedEnrichments(t *testing.T, got *state.Base, n int) []string {
	t.Helper()
	all := []string{"kept"}
	for after := ""; ; {
		before := len(all)
		var err error
		all, err = got.AppendEnrichedAfter(all, after, n)
		must(t, err, "the enriched people appended after %q", after)
		if len(all)-before < n {
			return all
		}
		after = all[len(all)-1]
	}
}

// sameEnrichments checks the store's pages of the IDs of the people
// holding an enrichment (EnrichedAfter: state.EnrichmentLister) against
// the people read whole, in pages of 1, 2 and all of them, and from an
// ID between two; it returns how many there are.
func sameEnrichments(t *testing.T, whole *state.State, got *state.Base) int {
	t.Helper()
	var want []string
	for id, p := range whole.People {
		if p.Enrichment != nil {
			want = append(want, id)
		}
	}
	slices.Sort(want)
	for _, n := range []int{1, 2, len(want) + 1} {
		var pages []string
		for after := ""; ; {
			ids, err := got.EnrichedAfter(after, n)
			must(t, err, "the enriched people after %q", after)
			pages = append(pages, ids...)
			if len(ids) < n {
				break
			}
			after = ids[len(ids)-1]
		}
		if d := cmp.Diff(want, pages); d != "" {
			t.Fatalf("the enriched people in pages of %d differ (-whole +base):\n%s", n, d)
		}
		if d := cmp.Diff(append([]string{"kept"}, want...), appendedEnrichments(t, got, n)); d != "" {
			t.Fatalf("the enriched people appended in pages of %d differ (-whole +base):\n%s", n, d)
		}
	}
	if len(want) > 1 {
		between := want[0] + "\x01" // PostgreSQL takes no NUL
		ids, err := got.EnrichedAfter(between, len(want))
		must(t, err, "the enriched people after %q", between)
		if d := cmp.Diff(want[1:], ids); d != "" {
			t.Fatalf("the enriched people after %q differ (-whole +base):\n%s", between, d)
		}
	}
	return len(want)
}
