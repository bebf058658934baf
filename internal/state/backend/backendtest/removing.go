package backendtest

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// testRemovalForm: the store reads people in the removal form
// (Base.Removing, as a partial state folds a retention removal of people
// it did not read) as the state read whole holds them: the ID, the
// addresses that found them, their enrichment's block and copy, the
// tracks that read them and the calls their history names, each once; an
// unknown ID is left out, one asked twice given once.
func testRemovalForm(t *testing.T, k Kind) {
	whole, got := storedOfEvents(t, k)
	all := ids(t, got)
	read, ok, err := got.Removing(append([]string{"nobody", all[0]}, all...))
	must(t, err, "removing")
	if !ok {
		t.Fatal("the store gives no removal form of people (state.RemovalReader)")
	}
	want, have := map[string]string{}, map[string]string{}
	for _, id := range all {
		want[id] = removalForm(whole.People[id])
	}
	for _, p := range read {
		if _, twice := have[p.ID]; twice {
			t.Errorf("%s given twice", p.ID)
		}
		have[p.ID] = removalForm(p)
	}
	if d := cmp.Diff(want, have); d != "" {
		t.Errorf("the removal form of the people differs from the state read whole (-whole +read):\n%s", d)
	}
	for _, part := range []string{"enriched by ", "tracked by ", "history by "} {
		if !slices.ContainsFunc(slices.Collect(maps.Values(want)), func(f string) bool { return strings.Contains(f, part) }) {
			t.Errorf("nobody of the fixture is %s...: the test checks none", part)
		}
	}
}

// removalForm is what the removal form of p holds, as one text.
func removalForm(p *state.Person) string {
	var b strings.Builder
	b.WriteString("found by " + strings.Join(p.FoundBy, ", "))
	if e := p.Enrichment; e != nil {
		b.WriteString("; enriched by " + e.By + ", copied by " + e.CopiedBy)
	}
	tracks := slices.Sorted(maps.Keys(p.Tracked))
	if len(tracks) > 0 {
		b.WriteString("; tracked by " + strings.Join(tracks, ", "))
	}
	var calls []string
	for _, d := range p.History {
		calls = append(calls, d.By)
	}
	slices.Sort(calls)
	if calls = slices.Compact(calls); len(calls) > 0 {
		b.WriteString("; history by " + strings.Join(calls, ", "))
	}
	return b.String()
}
