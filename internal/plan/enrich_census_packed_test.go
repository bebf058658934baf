package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCensusSketchesArePacked plans the block of placesLeft with its
// 1,000 enrichments stale (40 days old, a refresh of 30): read in
// sketch, they are packed (EnrichFacts.packed), not held in State.People
// as Persons, and the block's people to enrich hold them by index
// (member), no Person each. The plan is the whole state's, byte for
// byte: the 1,000 refreshes and the 5 places left.
func TestCensusSketchesArePacked(t *testing.T) {
	f, kept, e := placesLeft(placesBlock, 40*day)
	o := Options{Now: t0, Offline: true, FileExists: func(string) bool { return true }}
	want, _ := Build(f.cfg, f.st, o)
	if c := changeOf(want, e.Address); c == nil || c.Calls != 1005 {
		t.Fatalf("the whole state's plan: %+v; want 1,005 calls", c)
	}
	st, facts, _ := readFromStore(t, f, kept, o)
	if n := facts.packed.Len(); n != 1000 || st.People["0000.p"] != nil {
		t.Fatalf("%d sketches packed, 0000.p in State.People: %v; want the 1,000 packed alone", n, st.People["0000.p"] != nil)
	}
	v := newEnv(f.cfg, st, t0)
	v.facts = facts
	bp, err := v.collect(e, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	sketched := 0
	for _, m := range bp.todo {
		if m.k >= 0 {
			sketched++
			if m.p != nil {
				t.Fatalf("%s, to enrich, is held as a Person", m.p.ID)
			}
		}
	}
	if sketched != 1000 {
		t.Fatalf("%d sketches to enrich; want 1,000", sketched)
	}
	po := o
	po.Enrich = facts
	got, _ := Build(f.cfg, st, po)
	if facts.NeedsEveryone() || facts.Err() != nil {
		t.Fatalf("the plan needs everyone (%v)", facts.Err())
	}
	if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
		t.Fatalf("the plan differs (-whole +read):\n%s", d)
	}
}
