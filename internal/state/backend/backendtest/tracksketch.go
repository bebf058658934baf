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
	byID := func(a, b *state.Person) int { return strings.Compare(a.ID, b.ID) }
	n, read := 0, 0
	for _, addr := range append(by, "enrich.nothing") {
		ws, err := want.TrackSketched(addr)
		must(t, err, "track sketches")
		gs, err := got.TrackSketched(addr)
		must(t, err, "track sketches of the base")
		slices.SortFunc(ws, byID)
		slices.SortFunc(gs, byID)
		if d := cmp.Diff(ws, gs); d != "" {
			t.Fatalf("the track sketches of the people of %s differ (-whole +base):\n%s", addr, d)
		}
		for _, p := range ws {
			if p.Checked() != nil {
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
