package state

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPackedIDsGiveWhatStringsGive: a packed list answers Len, At, All,
// Head, Tail, AppendTo and Strings as the slice it was packed from, at
// every cut, empty IDs and an empty list included; so does one packed in
// fixed width (its IDs of one length) and one cut from a ListPacker's
// slabs.
func TestPackedIDsGiveWhatStringsGive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var lp ListPacker
	for n := range 40 {
		for _, fixed := range []bool{false, true} {
			ids := randomIDs(r, n, fixed)
			plain, packed, slab := IDsOf(ids), PackIDs(ids), packed(&lp, ids)
			if !packed.Packed() || !slab.Packed() || plain.Packed() {
				t.Fatalf("%d IDs: packed %v, %v and %v", n, packed.Packed(), slab.Packed(), plain.Packed())
			}
			if wantFixed := commonWidth(ids) > 0; (packed.width > 0) != wantFixed || (slab.width > 0) != wantFixed {
				t.Fatalf("%q: packed in widths %d and %d", ids, packed.width, slab.width)
			}
			for j := 0; j <= n; j++ {
				for k := j; k <= n; k++ {
					want := ids[j:k]
					for _, l := range []IDList{plain.Tail(j).Head(k - j), packed.Tail(j).Head(k - j), packed.Head(k).Tail(j), slab.Tail(j).Head(k - j)} {
						check(t, l, want)
					}
				}
			}
		}
	}
}

// randomIDs are n IDs, some empty; of one length (maybe 0) when fixed.
func randomIDs(r *rand.Rand, n int, fixed bool) []string {
	ids := make([]string, n)
	width := r.IntN(4)
	for i := range ids {
		if !fixed {
			width = r.IntN(4)
		}
		ids[i] = fmt.Sprintf("%0*d", width, r.IntN(10))[:width]
	}
	return ids
}

// packed is ids packed by lp.
func packed(lp *ListPacker, ids []string) IDList {
	size := 0
	for _, id := range ids {
		size += len(id)
	}
	lp.Begin(size)
	for _, id := range ids {
		lp.Add(id)
	}
	return lp.End()
}

// TestListPackerKeepsEachList: lists packed one after another into the
// same slabs, past a slab's end, each hold their IDs once all are packed;
// a list longer than a slab gets one of its own.
func TestListPackerKeepsEachList(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var lp ListPacker
	var want [][]string
	var got []IDList
	for k := range 3000 {
		n := r.IntN(700)
		if k == 1500 {
			n = endsSlab + 1
		}
		ids := randomIDs(r, n, k%2 == 0)
		want, got = append(want, ids), append(got, packed(&lp, ids))
	}
	for k := range want {
		check(t, got[k], want[k])
	}
}

func check(t *testing.T, l IDList, want []string) {
	t.Helper()
	if !l.Equal(IDsOf(want)) || !PackIDs(want).Equal(l) || l.Len() != len(want) || !slices.Equal(l.Strings(), want) || !slices.Equal(l.AppendTo([]string{"x"})[1:], want) {
		t.Fatalf("the list gives %d IDs %q, want %q", l.Len(), l.Strings(), want)
	}
	for i, id := range l.All() {
		if id != want[i] || l.At(i) != want[i] {
			t.Fatalf("ID %d is %q (At %q), want %q", i, id, l.At(i), want[i])
		}
	}
}

// TestPackedIDsHoldNoPointerAnID: a packed list of 10,000 IDs is two
// allocations (its text and its ends), not a string header an ID; one
// (its text) when the IDs have one length.
func TestPackedIDsHoldNoPointerAnID(t *testing.T) {
	ids := make([]string, 10000)
	for i := range ids {
		ids[i] = fmt.Sprintf("%08d.%05x", 10000000+i, i)
	}
	if n := testing.AllocsPerRun(10, func() { PackIDs(ids) }); n > 1 {
		t.Fatalf("packing 10,000 IDs of one length made %v allocations, want 1", n)
	}
	ids[5] += "x"
	if n := testing.AllocsPerRun(10, func() { PackIDs(ids) }); n > 2 {
		t.Fatalf("packing 10,000 IDs made %v allocations, want 2", n)
	}
	var s Search
	s.Packed = new(PackIDs(ids))
	if s.Kept() != len(ids) || s.Leads().At(9999) != ids[9999] {
		t.Fatalf("the search keeps %d leads, the last %q", s.Kept(), s.Leads().At(9999))
	}
}

// TestIDListsEqualByTheirIDs: lists are equal when they hold the same IDs
// in order, whatever their form; a different ID, order or length is not.
func TestIDListsEqualByTheirIDs(t *testing.T) {
	ab := PackIDs([]string{"a", "b"})
	for _, tc := range []struct {
		l    IDList
		want bool
	}{
		{IDsOf([]string{"a", "b"}), true},
		{PackIDs([]string{"ab"}), false},
		{IDsOf([]string{"b", "a"}), false},
		{PackIDs([]string{"a", "b", ""}), false},
		{IDsOf([]string{"a", "c"}), false},
	} {
		if ab.Equal(tc.l) != tc.want || tc.l.Equal(ab) != tc.want {
			t.Errorf("[a b] equal to %q: %v, want %v", tc.l.Strings(), ab.Equal(tc.l), tc.want)
		}
	}
}

// TestPackedIDsSearchAsSlices: Search over a sorted list, packed or not,
// finds what slices.BinarySearch finds over its strings, IDs held or
// not, and Sorted says whether each ID comes once, in order.
func TestPackedIDsSearchAsSlices(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 30 {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprint(r.IntN(50))
		}
		slices.Sort(ids)
		for _, l := range []IDList{IDsOf(ids), PackIDs(ids)} {
			for k := range 52 {
				id := fmt.Sprint(k)
				wi, wok := slices.BinarySearch(ids, id)
				if i, ok := l.Search(id); i != wi || ok != wok {
					t.Fatalf("%q in %q: %d %v, want %d %v", id, ids, i, ok, wi, wok)
				}
			}
			if got, want := l.Sorted(), len(slices.Compact(slices.Clone(ids))) == n; got != want {
				t.Fatalf("Sorted(%q) = %v, want %v", ids, got, want)
			}
		}
	}
}
