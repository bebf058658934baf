package plan

import (
	"math/rand/v2"
	"testing"
)

// TestFillWholeHoldsEachPersonOnce fills, as an apply does, the partial
// state of random enrich worlds with the people their plan reads in
// sketch (EnrichFacts.FillWhole, after readPartial): each is then held
// once, read whole, and the facts keep no sketch of them beside it.
func TestFillWholeHoldsEachPersonOnce(t *testing.T) {
	sketched := 0
	for seed := range 400 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xf111))
		f, o := enrichWorld(rng)
		st, facts := readPartial(t, seed, f, o)
		if facts == nil || len(facts.sketches) == 0 {
			continue
		}
		sketched++
		sketches := facts.sketches
		if err := facts.FillWhole(st); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(facts.sketches) > 0 || len(facts.SketchedIDs()) > facts.packed.Len() {
			t.Fatalf("seed %d: the facts keep %d sketches beside the people read whole", seed, len(facts.sketches))
		}
		for _, p := range sketches {
			if got := st.People[p.ID]; got == nil || got == p {
				t.Fatalf("seed %d: %s is held %v, want read whole (not its sketch %p)", seed, p.ID, got, p)
			}
		}
	}
	if sketched < 20 {
		t.Fatalf("only %d worlds read people in sketch: the test no longer tests FillWhole", sketched)
	}
}
