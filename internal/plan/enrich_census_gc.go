package plan

import (
	"os"
	"runtime/debug"

	"github.com/leadsync/leadsync/internal/config"
)

// While the census reads its people to enrich a page at a time
// (candidatePages), the heap holds what the plan read (the lead lists, the
// people read whole, the census) and each page becomes garbage once
// counted. A plan lets the heap grow to three times what the last
// collection kept (GOGC 200, cli.planGC), which pays while a state loads.
// Here it lets the pages' garbage grow to twice what the plan holds: at
// 3,000,000 people, 240 MB kept and 720 MB in all. pagesGC lowers GOGC to
// censusGCPercent for the pages: the heap then grows to 1.5 times what
// the plan holds, for a few more collections (docs/performance.md, "A
// where counted a page at a time").

// censusGCPercent is the collector's GOGC from the census of such a
// block to the end of the plan (env.settle): what follows the census
// (the counts of the people met, the plan's text) makes garbage beside
// what the plan holds too.
var censusGCPercent = 50

// pagesGC lowers GOGC to censusGCPercent (lowerGC).
func pagesGC() (restore func()) { return lowerGC(censusGCPercent) }

// lowerGC lowers GOGC to percent unless the user set GOGC (theirs wins,
// as cli.planGC's), it is lower already, or the collector is off, and
// returns what sets it back.
func lowerGC(percent int) (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(percent)
	if old <= percent { // lower, or off (negative)
		debug.SetGCPercent(old)
		return func() {}
	}
	return func() { debug.SetGCPercent(old) }
}

// censusGCMembers is the members from which any census lowers GOGC
// (pagesGC). Its lead lists then hold 35 MB a million members at least,
// and the people to enrich read whole about 1 KB each: at 3,000,000
// members and 136,000 read whole, 278-290 MB against 352-364 MB, for
// 0.15 s of CPU more. Below, the plan keeps GOGC 200: at 300,000 people
// (150,000 read whole) GOGC 50 cost 20 % of its CPU for 20 MB.
var censusGCMembers = 1_000_000

// censusGC lowers GOGC (pagesGC) until the plan is built (env.settle)
// for the census of e over sources when e counts its people in pages (a
// where, countOnly) or sources hold censusGCMembers members: its census,
// its pages or its people read whole grow the heap beside what the plan
// holds.
func (v *env) censusGC(e *config.Enrich, sources []source) {
	if v.gcBack == nil && (e.Where != nil && v.countOnly(e) || members(sources) >= censusGCMembers) {
		v.gcBack = pagesGC()
	}
}

// members counts the IDs of sources' lead lists.
func members(sources []source) int {
	n := 0
	for _, src := range sources {
		n += src.ids.Len()
	}
	return n
}

// readGC lowers GOGC (pagesGC) until the plan is built (env.settle) for
// a block of several (EnrichFacts.many) that walks its places over
// sources of censusGCMembers members: the plan holds every lead list and
// the people read in sketch (139 MB at 3,000,000 people with two blocks),
// and its counts of the members (distinctIDs, the claims, the savings)
// make about as much garbage again, which GOGC 200 lets the heap keep.
func (v *env) readGC(sources []source) {
	if v.gcBack == nil && v.facts != nil && v.facts.many && members(sources) >= censusGCMembers {
		v.gcBack = pagesGC()
	}
}

// keptGC lowers GOGC to keptGCPercent until the plan is built
// (env.settle) when e read the people retention removes in the kept form
// (Expired.ReadKept, past 200,000 of them): the plan then holds their IDs
// and index beside the lead lists and the sketches (152 MB at 1,000,000
// of 3,000,000 people), and GOGC 200 let the enrich blocks' counts grow
// the heap to three times that.
func (v *env) keptGC(e *Expired) {
	if v.gcBack == nil && e != nil && e.gone.len() > 0 {
		v.gcBack = lowerGC(keptGCPercent)
	}
}
