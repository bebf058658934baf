package state

import (
	"math/bits"
	"unsafe"
)

// A list appended to one value at a time and grown by append copies what
// it holds at each growth, and keeps up to a fifth more room than it
// holds: the track's 2,700,000 sketches (TrackSketchBuilder) took 48 MB
// for 38 MB of IDs, and twice that at the last growth, the plan's peak.
// Kept in chunks of chunkLen values, a list copies nothing as it grows and
// keeps room only in its last chunk and in the first, grown by append
// (about 0.3 MB in all).

// chunkBits sets the values a chunk holds: 65,536, 917 KB of IDs of 14
// characters, 512 KB of int64.
const (
	chunkBits = 16
	chunkLen  = 1 << chunkBits
	chunkMask = chunkLen - 1
)

// Chunks are values appended one at a time, 65,536 to a chunk. The first
// chunk grows as it fills (few values take little), the others are made
// whole. The track's sketches keep their statuses and times so; the
// track's plan keeps so the indexes of the people it lists (plan.dueList).
type Chunks[T any] struct {
	c [][]T
	n int
}

// Add appends v.
func (c *Chunks[T]) Add(v T) {
	switch {
	case c.n == 0:
		c.c = [][]T{nil}
	case c.n&chunkMask == 0:
		c.c = append(c.c, make([]T, 0, chunkLen))
	}
	last := &c.c[len(c.c)-1]
	*last = append(*last, v)
	c.n++
}

// At is the i-th value added.
func (c *Chunks[T]) At(i int) T { return c.c[i>>chunkBits][i&chunkMask] }

// Len is the number of values added.
func (c *Chunks[T]) Len() int { return c.n }

// textChunks are texts (IDs, page names) appended one at a time, chunkLen
// to a chunk (textChunk): 2,700,000 IDs of 14 characters take 37.8 MB.
type textChunks struct {
	c []textChunk
	n int
}

// textChunk holds up to chunkLen texts end to end, and the end of each
// only once two of their lengths differ.
type textChunk struct {
	text  []byte   // written once (add), never after: at returns parts of it
	ends  []uint32 // from the chunk's start; nil while every text is width long
	width int
}

// add appends s.
func (t *textChunks) add(s string) {
	if t.n&chunkMask == 0 {
		t.c = append(t.c, t.next())
	}
	t.c[len(t.c)-1].add(s, t.n&chunkMask)
	t.n++
}

// next is a new chunk, its room that of the last full one (none first:
// it grows as it fills).
func (t *textChunks) next() textChunk {
	if len(t.c) == 0 {
		return textChunk{}
	}
	return textChunk{text: make([]byte, 0, len(t.c[len(t.c)-1].text))}
}

// add appends s to a chunk holding k texts.
func (c *textChunk) add(s string, k int) {
	switch {
	case c.ends != nil:
	case k == 0:
		c.width = len(s)
	case len(s) != c.width:
		c.ends = make([]uint32, k, chunkLen)
		for i := range c.ends {
			c.ends[i] = uint32((i + 1) * c.width)
		}
	}
	c.text = append(c.text, s...)
	if c.ends != nil {
		c.ends = append(c.ends, uint32(len(c.text)))
	}
}

// at is the i-th text added: a part of its chunk's text, no copy.
func (t *textChunks) at(i int) string {
	c, k := &t.c[i>>chunkBits], i&chunkMask
	start, end := k*c.width, (k+1)*c.width
	if c.ends != nil {
		start, end = 0, int(c.ends[k])
		if k > 0 {
			start = int(c.ends[k-1])
		}
	}
	if start == end {
		return ""
	}
	return unsafe.String(&c.text[start], end-start)
}

// tooLong reports whether a chunk's text is too long for its ends
// (uint32): over 4 GB in 65,536 texts, never for IDs or page names.
func (t *textChunks) tooLong() bool {
	for _, c := range t.c {
		if len(c.text) >= 1<<32-1 {
			return true
		}
	}
	return false
}

// sparseTimes are times appended one at a time (Unix nanoseconds), any of
// them noTime: the times a track's people were last read, which those
// never read lack. Only the times set are kept (at, in chunks), and a bit
// a value says which are (set), with the count of those set before each
// word of bits (ranks). Beside a new track of 3,000,000 enriched, nine
// in ten never read, int64 each took 24 MB; so about 4 MB. When every
// value is set, the bits and counts add 0.7 MB to 3,000,000 times.
type sparseTimes struct {
	set   []uint64 // bit i%64 of set[i/64]: the i-th value is a time
	ranks []uint32 // the times set before set[k]
	at    Chunks[int64]
	n     int
}

// Add appends v, noTime for none.
func (s *sparseTimes) Add(v int64) {
	if s.n%64 == 0 {
		s.set = append(s.set, 0)
		s.ranks = append(s.ranks, uint32(s.at.Len()))
	}
	if v != noTime {
		s.set[s.n/64] |= 1 << (s.n % 64)
		s.at.Add(v)
	}
	s.n++
}

// At is the i-th value added, noTime for none.
func (s *sparseTimes) At(i int) int64 {
	w, bit := s.set[i/64], uint64(1)<<(i%64)
	if w&bit == 0 {
		return noTime
	}
	return s.at.At(int(s.ranks[i/64]) + bits.OnesCount64(w&(bit-1)))
}
