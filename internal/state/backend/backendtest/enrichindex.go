package backendtest

import (
	"errors"
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
// among a list of people (SketchedAmong), and every enrichment
// (EachEnrichment).
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
	answered += sameEnrichments(t, want, got)
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
	return len(ws)
}

// sameEnrichments checks the store's list of every enrichment (ID, block,
// time: state.EnrichmentLister) against the people read whole, and that
// an error of the caller ends it; it returns how many there are.
func sameEnrichments(t *testing.T, want, got *state.Base) int {
	t.Helper()
	list := func(b *state.Base) []string {
		var out []string
		must(t, b.EachEnrichment(func(id, by string, at time.Time) error {
			out = append(out, id+" "+by+" "+at.UTC().Format(time.RFC3339Nano))
			return nil
		}), "every enrichment")
		slices.Sort(out)
		return out
	}
	w, g := list(want), list(got)
	if d := cmp.Diff(w, g); d != "" {
		t.Fatalf("every enrichment differs (-whole +base):\n%s", d)
	}
	stop := errors.New("enough")
	calls := 0
	if err := got.EachEnrichment(func(string, string, time.Time) error { calls++; return stop }); !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("an error of the first call: %v after %d calls, want it after 1", err, calls)
	}
	return len(w)
}
