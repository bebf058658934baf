package plan

import (
	"fmt"
	"slices"
	"testing"
)

// TestAFailedRunReadsAListWithoutALimitInPages: a block without a limit
// over a search that runs and fails meets the 300 people of its list
// held before. Over the partial state the apply reads them in pages
// that double (readPlacesMet), the first of 16, not all at once, and
// claims the people the whole state's apply does.
func TestAFailedRunReadsAListWithoutALimitInPages(t *testing.T) {
	f := newFixture()
	f.search("search.run", kw("run"), refresh(day))
	var listed []string
	for i := range 300 {
		listed = append(listed, fmt.Sprintf("%d.p", i))
	}
	f.ran("search.run", t0.Add(-5*day), listed...)
	e := f.enrich("e", []string{"search.run"}, 0, 30*day)
	gets, read := 0, 0
	o := Options{Now: t0, Offline: true, Targets: []string{e.Address}}
	st, _, facts := applyPartialIn(t, 0, f, o, getCounter{packingStore{enrichMemStore{memStore{f.st}}}, &gets, &read})
	if st == nil || !facts.runs["search.run"] {
		t.Fatalf("the plan read in part (%v) and ran the search: the test no longer tests readPlacesMet", st != nil)
	}
	gets, read = 0, 0
	_, claimed := failedRunSpends(t, st, e, NewCandidates(f.cfg, nil).WithFacts(facts))
	_, want := failedRunSpends(t, f.st, e, NewCandidates(f.cfg, nil))
	if !slices.Equal(claimed, want) || len(want) != len(listed) {
		t.Fatalf("over the partial state the apply claims %d people, over the whole state %d, want %d", len(claimed), len(want), len(listed))
	}
	if gets != 5 || read != len(listed) {
		t.Errorf("the apply read %d people in %d reads, want %d in 5 (16, 32, 64, 128, the last 60)", read, gets, len(listed))
	}
}
