package plan

import (
	"fmt"
	"slices"
	"testing"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// TestAFailedRunReadsAListWithoutALimitInPages: a block without a limit
// over a search that runs and fails meets the 300 people of its list
// held before. Over the partial state the apply reads them in pages
// that double (readPlacesMet), the first of 16, not all at once, and
// claims the people the whole state's apply does.
func TestAFailedRunReadsAListWithoutALimitInPages(t *testing.T) {
	const listed = 300
	f, e := failedListWorld(listed)
	gets, read := 0, 0
	st, _, facts := applyFailedList(t, f, e, &gets, &read)
	_, claimed := failedRunSpends(t, st, e, NewCandidates(f.cfg, nil).WithFacts(facts))
	_, want := failedRunSpends(t, f.st, e, NewCandidates(f.cfg, nil))
	if !slices.Equal(claimed, want) || len(want) != listed {
		t.Fatalf("over the partial state the apply claims %d people, over the whole state %d, want %d", len(claimed), len(want), listed)
	}
	if gets != 5 || read != listed {
		t.Errorf("the apply read %d people in %d reads, want %d in 5 (16, 32, 64, 128, the last 60)", read, gets, listed)
	}
}

// failedListWorld is a block without a limit (e) over a search that runs
// (search.run), whose list holds n people held before, none enriched.
func failedListWorld(n int) (*fixture, *config.Enrich) {
	f := newFixture()
	f.search("search.run", kw("run"), refresh(day))
	var listed []string
	for i := range n {
		listed = append(listed, fmt.Sprintf("%d.p", i))
	}
	f.ran("search.run", t0.Add(-5*day), listed...)
	return f, f.enrich("e", []string{"search.run"}, 0, 30*day)
}

// applyFailedList is the partial state of an apply of e in f, with its
// plan and facts, from a store counting its reads (gets) and the people
// they read: both counts start at 0 once the apply's state is read.
func applyFailedList(t *testing.T, f *fixture, e *config.Enrich, gets, read *int) (*state.State, *Plan, *EnrichFacts) {
	t.Helper()
	o := Options{Now: t0, Offline: true, Targets: []string{e.Address}}
	st, p, facts := applyPartialIn(t, 0, f, o, getCounter{packingStore{enrichMemStore{memStore{f.st}}}, gets, read})
	if st == nil || !facts.runs["search.run"] {
		t.Fatalf("the plan read in part (%v) and ran the search: the test no longer tests readPlacesMet", st != nil)
	}
	*gets, *read = 0, 0
	return st, p, facts
}
