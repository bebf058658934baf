package backendtest

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// testTrackSketches checks a Base's sketches of the people of each
// enrichment's By (state.TrackSketcher: what a plan of a track of the
// enriched reads of them) against state.TrackSketch of the people read
// whole: their page names, statuses and read times among them.
func testTrackSketches(t *testing.T, k Kind) {
	whole, want, got := basesOfEvents(t, k)
	defer got.Close()
	if _, stored := got.Whole(); stored || !got.TrackSketches() {
		t.Skip("the backend reads its state whole: it answers from memory")
	}
	by, err := want.Enrichers()
	must(t, err, "enrichers")
	n, read := 0, 0
	for _, addr := range append(by, "enrich.nothing") {
		ws, gs := sketchesOf(t, want, addr), sketchesOf(t, got, addr)
		if d := cmp.Diff(ws, gs); d != "" {
			t.Fatalf("the track sketches of the people of %s differ (-whole +base):\n%s", addr, d)
		}
		for _, s := range ws {
			if !s.Checked.IsZero() {
				read++
			}
		}
		n += len(ws)
	}
	enriched := 0
	for _, p := range whole.People {
		if p.Enrichment != nil {
			enriched++
		}
	}
	if n != enriched || read == 0 {
		t.Fatalf("%d sketches of %d people enriched, %d of them read: the fixture no longer tests TrackSketched", n, enriched, read)
	}
}

// sketchesOf are b's track sketches of the people of an enrichment by
// by (Base.TrackSketchEach), in the order of their IDs.
func sketchesOf(t *testing.T, b *state.Base, by string) []state.TrackSketch {
	var out []state.TrackSketch
	must(t, b.TrackSketchEach(by, func(s state.TrackSketch) error {
		out = append(out, s)
		return nil
	}), "track sketches")
	slices.SortFunc(out, func(a, b state.TrackSketch) int { return strings.Compare(a.ID, b.ID) })
	return out
}
