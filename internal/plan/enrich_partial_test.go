package plan

import (
	"math/rand/v2"
	"testing"
)

// TestFillWholeHoldsEachPersonOnce readies, as an apply does once its plan
// is made, the partial state of random enrich worlds (Fill, then
// LetSketchesGo): it holds none of the sketches, and none of their people
// it did not read whole, until its engine first chooses people to enrich
// (FillWhole): then each is held once, read whole.
func TestFillWholeHoldsEachPersonOnce(t *testing.T) {
	sketched := 0
	for seed := range 400 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x1a7e))
		f, o := enrichWorld(rng)
		st, facts := readPartialSketched(t, seed, f, o, packingStore{enrichMemStore{memStore{f.st}}})
		if facts == nil || len(facts.sketches) == 0 {
			continue
		}
		sketched++
		sketches := facts.sketches
		facts.Fill(st)
		facts.LetSketchesGo(st)
		if len(facts.sketches) > 0 || len(facts.late) != len(sketches) {
			t.Fatalf("seed %d: the facts keep %d sketches and %d IDs of %d", seed, len(facts.sketches), len(facts.late), len(sketches))
		}
		for _, p := range sketches {
			if got := st.People[p.ID]; got == p {
				t.Fatalf("seed %d: %s is held in sketch once the plan is made", seed, p.ID)
			}
		}
		if err := facts.FillWhole(st); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(facts.late) > 0 {
			t.Fatalf("seed %d: %d IDs kept once read whole", seed, len(facts.late))
		}
		for _, p := range sketches {
			if got := st.People[p.ID]; got == nil || got == p {
				t.Fatalf("seed %d: %s is held %v, want read whole (not its sketch %p)", seed, p.ID, got, p)
			}
		}
	}
	if sketched < 20 {
		t.Fatalf("only %d worlds read people in sketch: the test no longer tests LetSketchesGo", sketched)
	}
}
