package testenv

import (
	"runtime/debug"
	"testing"
)

// TestCollectLess: GOGC 400 unless the environment sets GOGC, which wins.
func TestCollectLess(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	CollectLess()
	if got := debug.SetGCPercent(100); got != CollectLessPercent {
		t.Errorf("GOGC %d after CollectLess, want %d", got, CollectLessPercent)
	}
	t.Setenv("GOGC", "50")
	CollectLess()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d after CollectLess with GOGC=50 in the environment, want it left (100)", got)
	}
}
