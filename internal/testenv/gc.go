package testenv

import (
	"os"
	"runtime/debug"
)

// CollectLessPercent is the collector's GOGC that CollectLess sets.
const CollectLessPercent = 400

// CollectLess lets the heap of a test binary grow to five times what the
// collector last kept (GOGC 400) before it collects again, unless GOGC
// is set in the environment. It is for the packages whose tests build
// many small random worlds, each garbage a moment later: at GOGC 100 the
// collector took half of internal/plan's CPU (16.4 s against 7.9 s of
// user CPU), for a peak of 161 MB against 244 MB. A test that needs a
// goal of its own sets it (debug.SetGCPercent) and sets this one back.
func CollectLess() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(CollectLessPercent)
	}
}

// GCPercent is the collector's GOGC now (debug.SetGCPercent tells it only
// as it sets another: it is set back at once).
func GCPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}
