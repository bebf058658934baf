package plan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
)

// TestDistinctIDsKeepNoSetOfIDs: counting 200,000 IDs met twice each
// (two blocks over the same searches) makes the list of hashes, its
// sorting buffer and little else; maps of the hashes met twice and of
// their IDs grew by hundreds of allocations.
func TestDistinctIDsKeepNoSetOfIDs(t *testing.T) {
	var ids []string
	for i := range 100000 {
		ids = append(ids, fmt.Sprintf("1%07d.%05d", i, i%7))
	}
	sources := []source{{ids: state.PackIDs(ids)}, {}, {ids: state.IDsOf(ids)}, {ids: state.PackIDs([]string{"x"})}}
	if got := distinctIDs(sources); got != 100001 {
		t.Fatalf("distinctIDs = %d, want 100001", got)
	}
	if n := testing.AllocsPerRun(3, func() { distinctIDs(sources) }); n > 8 {
		t.Errorf("distinctIDs of 200,001 IDs: %v allocations, want 8 at most", n)
	}
}

// TestRadixSortSortsInPlace compares radixSort with slices.Sort on lists
// of random values, of values sharing their top bits, and of few values.
func TestRadixSortSortsInPlace(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, n := range []int{0, 1, 2, 17, 1000, 300000} {
		for _, top := range []uint32{0, 3, 1<<16 - 1} {
			xs := make([]uint32, n)
			for i := range xs {
				xs[i] = rng.Uint32()
				if top < 1<<16-1 {
					xs[i] = rng.Uint32N(top+1)<<16 | xs[i]&0xffff
				}
			}
			want := slices.Clone(xs)
			slices.Sort(want)
			radixSort(xs)
			if !slices.Equal(xs, want) {
				t.Fatalf("%d values, top bits up to %d: radixSort differs from slices.Sort", n, top)
			}
		}
	}
}
