package state

import (
	"testing"
	"time"
)

// TestCensusSketchesKeepEachByID packs sketches out of order, one ID
// twice, and reads each back by ID: the first added kept.
func TestCensusSketchesKeepEachByID(t *testing.T) {
	k, err := NewCensusSketchBuilder([]string{"company"})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 7, 1, 0, 22, 10, 510848346, time.UTC)
	add := []CensusSketch{
		{ID: "10000003", By: "enrich.a", EnrichedAt: at, Fields: []string{"C"}},
		{ID: "10000001", Status: StatusLeft, By: "enrich.b", EnrichedAt: at.Add(time.Hour), Fields: []string{""}},
		{ID: "10000003", By: "enrich.b", EnrichedAt: at, Fields: []string{"again"}},
		{ID: "10000002", By: "enrich.a", EnrichedAt: at.Add(-time.Hour), Fields: []string{"B"}},
	}
	for _, s := range add {
		if err := k.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.Add(CensusSketch{ID: "x"}); err == nil {
		t.Fatal("a sketch without the builder's fields was packed")
	}
	got := k.Done()
	want := []CensusSketch{add[1], add[3], add[0]}
	if got.Len() != len(want) {
		t.Fatalf("%d sketches packed, want %d", got.Len(), len(want))
	}
	for i, s := range want {
		g := got.Sketch(i)
		if g.ID != s.ID || g.Status != s.Status || g.By != s.By || !g.EnrichedAt.Equal(s.EnrichedAt) || g.Fields[0] != s.Fields[0] {
			t.Fatalf("sketch %d: %+v, want %+v", i, g, s)
		}
		if p := got.Person(i); p.Lead.Company != s.Fields[0] || p.Lead.PageName != PageUnread || p.Enrichment.By != s.By {
			t.Fatalf("the Person of sketch %d: %+v", i, p)
		}
	}
	if _, err := NewCensusSketchBuilder([]string{"no such field"}); err == nil {
		t.Fatal("a builder of an unknown lead field was made")
	}
}
