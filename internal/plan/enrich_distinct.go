package plan

import (
	"slices"
)

// distinctIDs counts the distinct IDs of sources (a person is one ID in a
// state: checkLeadIDs) without a set of millions of strings: their 32-bit
// hashes sorted (radixSort), then, for the hashes met more than once
// only, each such ID's place in the sources, by hash, in the list of the
// hashes, the IDs compared where hashes are equal (distinctShared). At
// 3,000,000 IDs: 12 MB, 0.1 s. Two blocks over the same 900,000 people
// meet 1.8 million IDs so: 14 MB, where maps of the hashes met twice and
// of their IDs took about 100 MB.
func distinctIDs(sources []source) int {
	n := 0
	for _, s := range sources {
		n += s.ids.Len()
	}
	hash := idHash()
	hashes := make([]uint32, 0, n)
	for _, s := range sources {
		for _, id := range s.ids.All() {
			hashes = append(hashes, hash(id))
		}
	}
	if n < 1<<14 {
		slices.Sort(hashes)
	} else {
		radixSort(hashes)
	}
	nDups, shared := 0, 0
	for i, h := range hashes {
		if i > 0 && hashes[i-1] == h || i+1 < len(hashes) && hashes[i+1] == h {
			shared++
			if i == 0 || hashes[i-1] != h {
				nDups++
			}
		}
	}
	if nDups == 0 {
		return n
	}
	dups := make([]uint32, 0, nDups) // the hashes met more than once, in order
	ends := make([]uint32, 0, nDups) // the end of each one's places (distinctShared)
	distinct, end := 0, uint32(0)
	for i, h := range hashes {
		switch {
		case i > 0 && hashes[i-1] == h:
			end++
			ends[len(ends)-1] = end
		case i+1 < len(hashes) && hashes[i+1] == h:
			end++
			dups = append(dups, h)
			ends = append(ends, end)
		default:
			distinct++
		}
	}
	// The hashes are no longer read: their list holds the places.
	return distinct + distinctShared(sources, hash, dups, ends, hashes[:shared])
}

// distinctShared counts the distinct IDs of sources whose hash is one of
// dups (sorted): ends[j] is the end of the places of dups[j]'s IDs among
// them, as many as places holds. It puts each such ID's place in the
// sources in places, by hash (its start in ends), and compares the IDs
// of a hash: no list of hashes and places to sort.
func distinctShared(sources []source, hash func(string) uint32, dups, ends, places []uint32) int {
	var filter [1 << 14]uint64 // a bit by the low 20 bits of each hash of dups
	for _, h := range dups {
		filter[h>>6&(1<<14-1)] |= 1 << (h & 63)
	}
	starts := make([]int, 0, len(sources))
	k := 0
	for _, s := range sources {
		starts = append(starts, k)
		for _, id := range s.ids.All() {
			h := hash(id)
			if filter[h>>6&(1<<14-1)]&(1<<(h&63)) != 0 {
				if j, found := slices.BinarySearch(dups, h); found {
					ends[j]--
					places[ends[j]] = uint32(k)
				}
			}
			k++
		}
	}
	id := func(k uint32) string {
		s, found := slices.BinarySearch(starts, int(k))
		if !found {
			s--
		}
		for int(k)-starts[s] >= sources[s].ids.Len() {
			s++ // an empty source shares its start with the next
		}
		return sources[s].ids.At(int(k) - starts[s])
	}
	distinct := 0
	for j, lo := range ends { // each the start of its hash's places now
		hi := uint32(len(places))
		if j+1 < len(ends) {
			hi = ends[j+1]
		}
		if same := places[lo:hi]; len(same) == 2 {
			distinct += 2
			if id(same[0]) == id(same[1]) {
				distinct--
			}
		} else {
			ids := make(map[string]struct{}, len(same))
			for _, k := range same {
				ids[id(k)] = struct{}{}
			}
			distinct += len(ids)
		}
	}
	return distinct
}

// radixSort sorts xs in place: each value moved to the part of xs its top
// 8 bits give (a pass of counts, then cycles of swaps), then each part by
// its low 24 bits (sortLow24) through a buffer of the largest part's
// length (12,000 values at 3,000,000 hashes), not of xs's (12 MB).
func radixSort(xs []uint32) {
	var next, end [1 << 8]int
	for _, x := range xs {
		end[x>>24]++
	}
	at := 0
	for d, c := range end {
		next[d], at = at, at+c
		end[d] = at
	}
	for d := range next {
		for next[d] < end[d] {
			x := xs[next[d]]
			for b := int(x >> 24); b != d; b = int(x >> 24) {
				xs[next[b]], x = x, xs[next[b]]
				next[b]++
			}
			xs[next[d]] = x
			next[d]++
		}
	}
	largest, start := 0, 0
	for _, e := range end {
		largest, start = max(largest, e-start), e
	}
	buf := make([]uint32, largest)
	start = 0
	for _, e := range end {
		sortLow24(xs[start:e], buf)
		start = e
	}
}

// sortLow24 sorts xs by their low 24 bits in two passes of 12 through buf
// (at least as long), the values back in xs after the second.
func sortLow24(xs, buf []uint32) {
	src, dst := xs, buf[:len(xs)]
	for shift := 0; shift < 24; shift += 12 {
		var count [1 << 12]int
		for _, x := range src {
			count[x>>shift&0xfff]++
		}
		at := 0
		for i, c := range count {
			count[i], at = at, at+c
		}
		for _, x := range src {
			d := x >> shift & 0xfff
			dst[count[d]] = x
			count[d]++
		}
		src, dst = dst, src
	}
}
