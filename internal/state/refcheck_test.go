package state

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// A RefCheck finds each hash in its bucket as a search of the whole list
// would: every hash held at its index, none that is not, at every size
// (no name, one, a bucket's worth, many).
func TestRefCheckFindsAsASearchOfTheWholeList(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 7, 8, 9, 100, 5000, 70000} {
		c := &RefCheck{ids: make([]uint64, 0, n)}
		for range n {
			c.ids = append(c.ids, r.Uint64())
		}
		if n > 2 { // the extremes
			c.ids[0], c.ids[1] = 0, ^uint64(0)
		}
		slices.Sort(c.ids)
		c.ids = slices.Compact(c.ids)
		c.index()
		probes := append(slices.Clone(c.ids), 0, 1, ^uint64(0), ^uint64(0)-1)
		for range 1000 {
			probes = append(probes, r.Uint64())
		}
		for _, h := range probes {
			i, ok := c.find(h)
			wi, wok := slices.BinarySearch(c.ids, h)
			if i != wi || ok != wok {
				t.Fatalf("%d hashes: find(%x) = %d, %v; the whole list's search: %d, %v", len(c.ids), h, i, ok, wi, wok)
			}
		}
	}
}
