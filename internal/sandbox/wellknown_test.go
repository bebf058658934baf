package sandbox

import "testing"

func TestWellKnownMembersExistWhateverTheSeed(t *testing.T) {
	for _, seed := range []int64{0, 1, 7, 42} {
		members := generate(seed, 600)
		pages := map[string]int{}
		for _, m := range members {
			pages[m.PageName]++
		}
		for _, w := range WellKnown {
			page := w.First + "_" + w.Last
			if pages[page] != 1 {
				t.Errorf("seed %d: %d members with page name %s, want 1", seed, pages[page], page)
			}
		}
		for p, n := range pages {
			if n > 1 {
				t.Errorf("seed %d: page name %s used %d times", seed, p, n)
			}
		}
	}
}
