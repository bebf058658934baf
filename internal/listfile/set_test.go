package listfile

import (
	"fmt"
	"hash/maphash"
	"testing"
)

// TestSetFilter checks the Bloom filter in front of a set's map: every key
// put is found (no false negatives, whatever the size), and few keys not
// put get past the filter.
func TestSetFilter(t *testing.T) {
	for _, n := range []int{0, 10, 10_000, 200_000} {
		s := newSet(NetworkID, n)
		for i := range n {
			s.put(fmt.Sprintf("%d.%05x", 10000000+i, i))
		}
		for i := range n {
			if k := fmt.Sprintf("%d.%05x", 10000000+i, i); !s.HasKey(k) || !s.HasBytes([]byte(k)) {
				t.Fatalf("n=%d: %s not found", n, k)
			}
		}
		past := 0
		const probes = 100_000
		for i := range probes {
			if s.mayHave(maphash.String(seed, fmt.Sprintf("%d.abc", 90000000+i))) {
				past++
			}
		}
		if share := float64(past) / probes; share > 0.05 {
			t.Errorf("n=%d: %.1f %% of absent keys pass the filter", n, 100*share)
		}
	}
	// A set grown past what it was sized for stays right (and slower).
	s := NewSet(Email)
	for i := range 50_000 {
		s.Add(fmt.Sprintf("p%d@x.example", i))
	}
	if !s.Has("P49999@X.example") || s.Has("p50000@x.example") {
		t.Error("a set grown past its filter's size answers wrong")
	}
}
