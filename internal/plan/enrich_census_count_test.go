package plan

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOneBlockAtItsLimitCountsItsPeople plans the block of placesLeft
// alone at its limit (1,000: its enrichments), nothing stale: the walk
// cannot decide it (its text counts the 2,000 not enriched), so the
// census does. The census counts them by ID (countOnly: Absent), as for a
// block among several, rather than reading them whole: none takes a
// place. The plan is the whole state's, byte for byte, and no person is
// read whole; read whole, they were 2,000, and an apply read them again
// into its partial state (WalkedIDs). Lead lists may name people the
// state does not hold: the plan still is the whole state's. The store
// is asked in pages of 7 (a ghost in an early page) or in one page (the
// last page holds them all).
func TestOneBlockAtItsLimitCountsItsPeople(t *testing.T) {
	defer func(n int) { absentPage = n }(absentPage)
	for _, page := range []int{7, 1 << 16} {
		absentPage = page
		for _, ghosts := range []int{0, 3} {
			t.Run(fmt.Sprintf("page %d, %d ghosts", page, ghosts), func(t *testing.T) {
				planAtLimitWithGhosts(t, ghosts)
			})
		}
	}
}

// planAtLimitWithGhosts is TestOneBlockAtItsLimitCountsItsPeople with
// ghosts lead IDs that name no one.
func planAtLimitWithGhosts(t *testing.T, ghosts int) {
	f, kept, e := placesLeft(placesBlock, day)
	e.Limit = 1000
	for k := range ghosts {
		addr := fmt.Sprintf(`search.a["%d"]`, k)
		sr := f.st.Searches[addr]
		sr.LeadIDs = append(sr.LeadIDs, fmt.Sprintf("ghost%d.p", k))
		kept[addr] = len(sr.LeadIDs)
	}
	o := Options{Now: t0, Offline: true, FileExists: func(string) bool { return true }}
	want, _ := Build(f.cfg, f.st, o)
	if c := changeOf(want, e.Address); c == nil || c.Calls != 0 || c.Reason != ReasonLimitReached {
		t.Fatalf("the whole state's plan: %+v; want no call, the limit reached", c)
	}
	got, store, again := countedPlan(t, f, kept, o)
	if d := cmp.Diff(changeOf(want, e.Address), changeOf(got, e.Address)); d != "" {
		t.Fatalf("the block's change differs (-whole +read):\n%s", d)
	}
	if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
		t.Fatalf("the plan differs (-whole +read):\n%s", d)
	}
	if store.read != 0 || len(again.WalkedIDs()) != 0 {
		t.Fatalf("%d people read whole, %d for the apply to read; want none", store.read, len(again.WalkedIDs()))
	}
}

// countedPlan plans f through a store of its state (the lead lists of
// kept read first) whose walk cannot decide the plan: again is the
// census' facts that planned it.
func countedPlan(t *testing.T, f *fixture, kept map[string]int, o Options) (*Plan, *countingStore, *EnrichFacts) {
	t.Helper()
	st, facts, store := readFromStore(t, f, kept, o)
	store.read = 0
	po := o
	po.Enrich = facts
	Build(f.cfg, st, po)
	again := facts.Recount()
	if again == nil {
		t.Fatal("the walk decided a plan with nothing to enrich")
	}
	po.Enrich = again
	got, _ := Build(f.cfg, st, po)
	if again.NeedsEveryone() || again.Err() != nil {
		t.Fatalf("the census needs everyone (%v)", again.Err())
	}
	return got, store, again
}
