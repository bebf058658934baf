package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// TestOneBlockAtItsLimitCountsItsPeople plans the block of placesLeft
// alone at its limit (1,000: its enrichments), nothing stale: the walk
// cannot decide it (its text counts the 2,000 not enriched), so the
// census does. The census counts them by ID (countOnly: Exist), as for a
// block among several, rather than reading them whole: none takes a
// place. The plan is the whole state's, byte for byte, and no person is
// read whole; read whole, they were 2,000, and an apply read them again
// into its partial state (WalkedIDs).
func TestOneBlockAtItsLimitCountsItsPeople(t *testing.T) {
	f, kept, e := placesLeft(placesBlock, day)
	e.Limit = 1000
	o := Options{Now: t0, Offline: true, FileExists: func(string) bool { return true }}
	want, _ := Build(f.cfg, f.st, o)
	if c := changeOf(want, e.Address); c == nil || c.Calls != 0 || c.Reason != ReasonLimitReached {
		t.Fatalf("the whole state's plan: %+v; want no call, the limit reached", c)
	}
	store := &countingStore{enrichMemStore: enrichMemStore{memStore{f.st}}}
	b := state.NewStoredBase(storedBase(f.st).Records, kept, store)
	r, facts, ok, err := EnrichReadsOf(f.cfg, b.Records, o, b)
	if err != nil || !ok {
		t.Fatalf("EnrichReadsOf: %v, %v", ok, err)
	}
	st, err := b.Reading(r.Searches, r.Persons)
	if err != nil {
		t.Fatal(err)
	}
	facts.Fill(st)
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
	if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
		t.Fatalf("the plan differs (-whole +read):\n%s", d)
	}
	if store.read != 0 || len(again.WalkedIDs()) != 0 {
		t.Fatalf("%d people read whole, %d for the apply to read; want none", store.read, len(again.WalkedIDs()))
	}
}
