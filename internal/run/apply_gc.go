package run

import (
	"os"
	"runtime/debug"

	"github.com/leadsync/leadsync/internal/state"
)

// applyGCPercent is the collector's GOGC while an apply runs on a partial
// state holding applyGCPeople people in sketch or more (applyGC). Such a
// state holds 200-250 MB that live to the end (the lead lists, the
// sketches, the people read whole). The reads of the people to enrich
// and the plan's counts make about as much garbage again. At GOGC 100
// the heap grew to twice what it held before the first call. At
// 3,000,000 people beside a track and refresh_on, that was 469-483 MB of
// peak RSS; at 25, 379-407 MB, for up to 5 % more CPU (docs/performance.md,
// "The apply beside refresh_on (fifteenth round)"). The calls that
// follow make little garbage a second.
const applyGCPercent = 25

// applyGCPeople is the people in sketch from which applyGC lowers GOGC
// (a variable for tests).
var applyGCPeople = 1_000_000

// applyGC lowers GOGC to applyGCPercent when st, an apply's partial
// state, holds applyGCPeople people in sketch or more, unless GOGC is set
// in the environment or the collector is set lower or off. restore sets
// it back.
func applyGC(st *state.State) (restore func()) {
	if os.Getenv("GOGC") != "" || st.TrackSketches().Len() < applyGCPeople {
		return func() {}
	}
	old := debug.SetGCPercent(applyGCPercent)
	if old < applyGCPercent { // lower, or off (negative)
		debug.SetGCPercent(old)
		return func() {}
	}
	return func() { debug.SetGCPercent(old) }
}

// restoreGC sets the collector back as it was before the partial state
// was read (applyGC); a second call does nothing.
func (in *applyRead) restoreGC() {
	if in.gcBack != nil {
		in.gcBack()
		in.gcBack = nil
	}
}
