package backendtest

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// movedEnrichSteps are the applies of testPartialMoveEnrich, each that
// long after minute 60: an enrich block at its limit and a track of the
// people it enriched; then both renamed by moved blocks once the
// enrichments and the track's reads are stale (the store counts them
// under the old addresses); then the same configuration, whose moved
// blocks move nothing any more, with a place left under the limit. None
// but the first loads the state whole.
var movedEnrichSteps = []struct {
	enrich, track string
	moved         bool
	limit         int
	after         time.Duration
	loads         int
}{
	{enrich: "contacts", track: "t", limit: 3, loads: 1},
	{enrich: "people", track: "watch", moved: true, limit: 3, after: 35 * day},
	{enrich: "people", track: "watch", limit: 4, after: 70 * day},
}

// movedEnrichBlocks are enrichBlocks (the block named enrich) with a
// track of its people named track, and, when moved, the moved blocks
// that rename enrich.contacts and track.t to them.
func movedEnrichBlocks(limit int, enrich, track string, moved bool) string {
	text := strings.Replace(enrichBlocks(limit, false), `enrich "contacts"`, fmt.Sprintf("enrich %q", enrich), 1) +
		fmt.Sprintf("track %q {\n  from  = [enrich.%s]\n  every = \"30d\"\n}\n", track, enrich)
	if moved {
		text += movedBlock("enrich.contacts", "enrich."+enrich) + movedBlock("track.t", "track."+track)
	}
	return text
}

// testPartialMoveEnrich: an apply of an enrich block and a track renamed
// by moved blocks, from the configuration or a saved plan, runs on a
// partial state (the store's counts asked under the old addresses), and
// leaves the same state and summary as the apply that loads the state
// whole.
func testPartialMoveEnrich(t *testing.T, k Kind) {
	for _, saved := range []bool{false, true} {
		whole, part := partialPair(t, k)
		wholeDir, partDir := t.TempDir(), t.TempDir()
		for i, step := range movedEnrichSteps {
			text := sandboxOneCallAtATime + movedEnrichBlocks(step.limit, step.enrich, step.track, step.moved)
			at := At(60).Add(step.after)
			wantSum, want, _ := partialApplyAt(t, whole, wholeDir, text, nil, saved && i > 0, true, at)
			gotSum, got, loads := partialApplyAt(t, part, partDir, text, nil, saved && i > 0, false, at)
			if i == 1 && (wantSum == nil || len(wantSum.Moved) == 0) {
				t.Errorf("saved plan %v, step %d: nothing moved", saved, i)
			}
			sameApply(t, i, step.loads, loads, wantSum, gotSum, want, got)
		}
	}
}
