package backendtest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// testCensusSketches checks a Base's census sketches of the people of
// each enrichment's By (state.CensusSketcher: what the census of a plan
// of enrich blocks keeps of them) against the people read whole: their
// statuses, enrichments' times and every lead field a where reads, up to
// a time and up to the end of time; and that packing them
// (CensusSketchBuilder) gives each back, in the order of their IDs.
func testCensusSketches(t *testing.T, k Kind) {
	whole, want, got := basesOfEvents(t, k)
	defer got.Close()
	if _, stored := got.Whole(); stored {
		t.Skip("the backend reads its state whole: it answers from memory")
	}
	var keys []string
	for _, f := range person.LeadFields {
		if f.Where {
			keys = append(keys, f.Key)
		}
	}
	by, err := want.Enrichers()
	must(t, err, "enrichers")
	end, early := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC), earliestEnrichment(whole)
	n, filled := 0, 0
	for _, addr := range append(by, "enrich.nothing") {
		for _, before := range []time.Time{end, early} {
			ws, gs := censusSketchesOf(t, want, addr, before, keys), censusSketchesOf(t, got, addr, before, keys)
			if d := cmp.Diff(ws, gs); d != "" {
				t.Fatalf("the census sketches of the people of %s up to %v differ (-whole +base):\n%s", addr, before, d)
			}
			checkPacked(t, got, addr, before, keys, gs)
			if before == end {
				n += len(ws)
				filled += countFilled(ws)
			}
		}
	}
	if n == 0 || filled == 0 {
		t.Fatalf("%d census sketches, %d lead fields filled: the fixture no longer tests CensusSketchEach", n, filled)
	}
}

// censusSketchesOf are b's census sketches of the people of by's
// enrichments up to before (Base.CensusSketchEach), in the order of
// their IDs.
func censusSketchesOf(t *testing.T, b *state.Base, by string, before time.Time, keys []string) []state.CensusSketch {
	var out []state.CensusSketch
	must(t, b.CensusSketchEach(by, before, keys, func(s state.CensusSketch) error {
		s.Fields = slices.Clone(s.Fields)
		s.EnrichedAt = s.EnrichedAt.UTC()
		out = append(out, s)
		return nil
	}), "census sketches")
	slices.SortFunc(out, func(a, b state.CensusSketch) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// checkPacked fails t unless b's census sketches packed as they come
// (CensusSketchEach into a CensusSketchBuilder) are want, by ID, and
// make Persons holding them.
func checkPacked(t *testing.T, b *state.Base, by string, before time.Time, keys []string, want []state.CensusSketch) {
	t.Helper()
	k, err := state.NewCensusSketchBuilder(keys)
	must(t, err, "census sketches packed")
	must(t, b.CensusSketchEach(by, before, keys, k.Add), "census sketches packed")
	packed := k.Done()
	if packed.Len() != len(want) {
		t.Fatalf("%d census sketches packed of %s, want %d", packed.Len(), by, len(want))
	}
	for i, s := range want {
		if d := cmp.Diff(s, packed.Sketch(i)); d != "" {
			t.Fatalf("the census sketch of %s packed differs (-read +packed):\n%s", s.ID, d)
		}
		p := packed.Person(i)
		if got, err := state.CensusSketchOf(p, keys); err != nil || !cmp.Equal(s, got) {
			t.Fatalf("the Person of the census sketch of %s holds %+v (%v), want %+v", s.ID, got, err, s)
		}
	}
}

// earliestEnrichment is the time of whole's earliest enrichment.
func earliestEnrichment(whole *state.State) time.Time {
	var at time.Time
	for _, p := range whole.People {
		if e := p.Enrichment; e != nil && (at.IsZero() || e.EnrichedAt.Before(at)) {
			at = e.EnrichedAt
		}
	}
	return at
}

// countFilled counts the lead fields of ss that are not empty.
func countFilled(ss []state.CensusSketch) int {
	n := 0
	for _, s := range ss {
		for _, v := range s.Fields {
			if v != "" {
				n++
			}
		}
	}
	return n
}
