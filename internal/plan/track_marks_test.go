package plan

import (
	"math/rand/v2"
	"testing"
)

// TestMarksSetAndCount marks people at random across words of bits: each
// marked is had, no other, and count counts them.
func TestMarksSetAndCount(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	n := 1000
	m, want := newMarks(n), make([]bool, n)
	for range 300 {
		i := r.IntN(n)
		m.set(i)
		want[i] = true
	}
	marked := 0
	for i, w := range want {
		if m.has(i) != w {
			t.Fatalf("person %d marked %v, want %v", i, m.has(i), w)
		}
		if w {
			marked++
		}
	}
	if m.count() != marked {
		t.Fatalf("count %d, want %d", m.count(), marked)
	}
}
