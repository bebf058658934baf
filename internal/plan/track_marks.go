package plan

import "math/bits"

// marks are a bit for each of a state's people in sketch, by index: the
// people a track of this run reads (builder.trackNow), those its sources
// gave it (trackSeen), those met among a block's members (metBy). A
// []bool took a byte each: 3 MB apiece at 3,000,000 people. Nil marks
// none.
type marks []uint64

// newMarks are marks for n people, none set.
func newMarks(n int) marks { return make(marks, (n+63)/64) }

// has reports whether i is marked.
func (m marks) has(i int) bool { return m[i/64]&(1<<(i%64)) != 0 }

// set marks i.
func (m marks) set(i int) { m[i/64] |= 1 << (i % 64) }

// count is how many are marked.
func (m marks) count() int {
	n := 0
	for _, w := range m {
		n += bits.OnesCount64(w)
	}
	return n
}
