package run

import (
	"fmt"
	"runtime/debug"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/testenv"
)

// TestApplyGCLowersTheGoalForManySketches lowers GOGC to applyGCPercent
// for a partial state of applyGCPeople people in sketch, not for one of
// fewer, nor when GOGC is set in the environment or the collector runs
// lower already; restoring sets it back once.
func TestApplyGCLowersTheGoalForManySketches(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer func(n int) { applyGCPeople = n }(applyGCPeople)
	applyGCPeople = 3
	for _, tc := range []struct {
		sketches, before int
		env              string
		want             int
	}{
		{3, 100, "", applyGCPercent},
		{2, 100, "", 100},
		{3, 100, "100", 100},
		{3, 10, "", 10},
		{3, -1, "", -1},
	} {
		t.Setenv("GOGC", tc.env)
		debug.SetGCPercent(tc.before)
		var k state.TrackSketchBuilder
		for i := range tc.sketches {
			k.Add(state.TrackSketch{ID: fmt.Sprintf("p%d", i), Status: "active", By: "enrich.e"})
		}
		st := state.New()
		st.SetTrackSketches(k.Done())
		in := &applyRead{gcBack: applyGC(st)}
		if got := testenv.GCPercent(); got != tc.want {
			t.Errorf("%d sketches, GOGC %d (env %q): %d while applied, want %d", tc.sketches, tc.before, tc.env, got, tc.want)
		}
		in.restoreGC()
		debug.SetGCPercent(7)
		in.restoreGC() // a second call does nothing
		if got := testenv.GCPercent(); got != 7 {
			t.Errorf("%d sketches: a second restoreGC set GOGC to %d", tc.sketches, got)
		}
		debug.SetGCPercent(tc.before)
		in = &applyRead{gcBack: applyGC(st)}
		in.restoreGC()
		if got := testenv.GCPercent(); got != tc.before {
			t.Errorf("%d sketches, GOGC %d (env %q): %d after, want it back", tc.sketches, tc.before, tc.env, got)
		}
	}
}
