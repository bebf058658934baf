package state

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestTextChunksGiveWhatWasAdded adds texts over several chunks: of one
// length, or with a text of another length first in a chunk, later, or
// last, empty ones among them. Each comes back as added, and a chunk
// whose texts have one length keeps no ends.
func TestTextChunksGiveWhatWasAdded(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 7))
	for _, odd := range []int{-1, 0, 1, chunkLen - 1, chunkLen, 2*chunkLen + 5, 3*chunkLen - 1} {
		n := 3*chunkLen + 3
		in := make([]string, n)
		for i := range in {
			in[i] = fmt.Sprintf("%06d.%07d", r.IntN(1e6), i)
		}
		if odd >= 0 {
			in[odd] = in[odd][:r.IntN(len(in[odd]))] // another length, maybe empty
		}
		var c textChunks
		for _, s := range in {
			c.add(s)
		}
		for i, want := range in {
			if got := c.at(i); got != want {
				t.Fatalf("odd text at %d: text %d is %q, want %q", odd, i, got, want)
			}
		}
		for k, ch := range c.c {
			hasOdd := odd>>chunkBits == k
			if (ch.ends != nil) != hasOdd {
				t.Fatalf("odd text at %d: chunk %d keeps ends %v", odd, k, ch.ends != nil)
			}
		}
		if c.tooLong() {
			t.Fatalf("odd text at %d: chunks of 16 bytes a text too long", odd)
		}
	}
}

// TestTextChunksOfEmptyTexts: texts all empty, or empty then not, come
// back as added.
func TestTextChunksOfEmptyTexts(t *testing.T) {
	for _, in := range [][]string{{"", "", ""}, {"", "ab", ""}, {"a", ""}} {
		var c textChunks
		for _, s := range in {
			c.add(s)
		}
		for i, want := range in {
			if got := c.at(i); got != want {
				t.Fatalf("%q: text %d is %q", in, i, got)
			}
		}
	}
}

// TestChunksGiveWhatWasAdded adds values over several chunks, the first
// grown as it fills, the others made whole, and reads each back.
func TestChunksGiveWhatWasAdded(t *testing.T) {
	var c Chunks[int64]
	n := 2*chunkLen + 7
	for i := range n {
		c.Add(int64(i) * 3)
	}
	if c.n != n || len(c.c) != 3 || cap(c.c[1]) != chunkLen {
		t.Fatalf("%d values in %d chunks, the second of room %d", c.n, len(c.c), cap(c.c[1]))
	}
	for i := range n {
		if got := c.At(i); got != int64(i)*3 {
			t.Fatalf("value %d is %d", i, got)
		}
	}
}

// TestSparseTimesGiveWhatWasAdded adds times over several chunks, none
// (noTime) at a rate from never to always, runs of each across words of
// bits, and reads each back; only the times set are kept.
func TestSparseTimesGiveWhatWasAdded(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 11))
	for _, none := range []float64{0, 0.1, 0.5, 0.9, 1} {
		n := chunkLen + 130
		in := make([]int64, n)
		var s sparseTimes
		set := 0
		for i := range in {
			in[i] = noTime
			if r.Float64() >= none || i%200 < 70 && none == 0.5 {
				in[i] = r.Int64N(1<<62) - 1<<61
				set++
			}
			s.Add(in[i])
		}
		for i, want := range in {
			if got := s.At(i); got != want {
				t.Fatalf("none %.1f: time %d is %d, want %d", none, i, got, want)
			}
		}
		if s.at.Len() != set {
			t.Fatalf("none %.1f: %d times kept, %d set", none, s.at.Len(), set)
		}
	}
}
