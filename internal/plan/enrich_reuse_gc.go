package plan

// Beside a large workspace, a plan holds the other workspaces' lookup
// keys while it finds the people they name (reuseReads, listHeld), then,
// past maxReuseRead of them, reads the people held a page at a time as it
// meets them (readHeld), keeping them and the other workspaces' answers
// (env.reuse). Each key's pass and each page read become garbage beside
// what the plan holds. GOGC 200 (cli.planGC) let that grow to twice
// what the plan holds: at 1,000,000 people, 200,000 held, 320 MB kept
// and 795 MB in all. Both lower GOGC to reuseGCPercent (docs/performance.md, "Reuse
// past the caps in less memory").

// reuseGCPercent is the collector's GOGC while the keys are listed and
// once the people held are read as met. At 50, as pagesGC sets it, the
// plan above took 20-30 % more CPU; at 100, about 5-10 %.
var reuseGCPercent = 100

// keysGC lowers GOGC to reuseGCPercent (lowerGC) while the other
// workspaces' keys are listed and the people they name found
// (heldPeople): 4,400,000 keys held 210 MB beside the pages of their
// pass. It returns what sets the collector back.
func keysGC() (restore func()) { return lowerGC(reuseGCPercent) }

// heldGC lowers GOGC to reuseGCPercent until the plan is built
// (env.settle) once it reads people held as it meets them (readHeld):
// the pages read stay (reuseFacts.met), and each read's rows, and the
// other workspaces' rows read to answer, are garbage.
func (v *env) heldGC() {
	if v.gcBack == nil {
		v.gcBack = lowerGC(reuseGCPercent)
	}
}
