package backendtest

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// partialManySteps are the configurations testPartialManyEnrichApply
// applies one after the other: two enrich blocks over overlapping
// searches (plan.EnrichReadsOf answers them together), at their limits
// and refreshing, with places left in one or both (taken by the people
// the store names), the second block's people claimed by the first, and
// a saved plan made again at the time it was made; and with exclude
// blocks (excludeFiles) naming people of the state the step before left,
// the first block without a limit (contacts 0) in three, with
// refresh_on in two; in the last, both blocks have a where, and the
// second, at its limit, counts its people to enrich read in pages
// (plan's candidatePages).
var partialManySteps = []struct {
	contacts, leaders int // the limits
	targets           []string
	after             time.Duration
	saved             bool
	loads             int
	exclude           bool
	refreshOn         bool // refresh_on = ["company"] in the first block
	where             bool // a where in the second block
}{
	{contacts: 2, leaders: 1, loads: 1},
	{contacts: 2, leaders: 1, after: 11 * day},
	{contacts: 3, leaders: 3, after: 31 * day},
	{contacts: 5, leaders: 3, after: 62 * day, targets: []string{"enrich.contacts", "enrich.leaders"}},
	{contacts: 5, leaders: 4, after: 93 * day, saved: true, targets: []string{"enrich.contacts", "enrich.leaders"}},
	{contacts: 5, leaders: 4, after: 124 * day, targets: []string{"enrich.contacts", "enrich.leaders"}, exclude: true},
	{contacts: 7, leaders: 5, after: 155 * day, saved: true, targets: []string{"enrich.contacts", "enrich.leaders"}, exclude: true},
	{contacts: 0, leaders: 5, after: 186 * day, targets: []string{"enrich.contacts", "enrich.leaders"}, exclude: true},
	{contacts: 0, leaders: 6, after: 217 * day, targets: []string{"enrich.contacts", "enrich.leaders"}, refreshOn: true},
	{contacts: 0, leaders: 7, after: 248 * day, saved: true, targets: []string{"enrich.contacts", "enrich.leaders"}, exclude: true, refreshOn: true},
	{contacts: 9, leaders: 1, after: 279 * day, targets: []string{"enrich.contacts", "enrich.leaders"}, where: true},
}

// manyBlocks are the searches and the two enrich blocks of a step.
func manyBlocks(contacts, leaders int) string {
	return searchS(3) + searchT + searchU + fmt.Sprintf(`enrich "contacts" {
  from    = [search.t, search.s]
  limit   = %d
  refresh = "30d"
}
enrich "leaders" {
  from    = [search.s["Hamburg"], search.u]
  limit   = %d
  refresh = "10d"
}
`, contacts, leaders)
}

// testPartialManyEnrichApply: an apply of two enrich blocks runs on a
// partial state on a backend that reads people on request (it loads
// nothing whole), and leaves the same stored state and shows the same
// summary as the apply that loads the state whole, against the same
// sandbox; each step enriches someone.
func testPartialManyEnrichApply(t *testing.T, k Kind) {
	whole, part := partialPair(t, k)
	wholeDir, partDir := t.TempDir(), t.TempDir()
	var before *state.State
	for i, step := range partialManySteps {
		text := sandboxOneCallAtATime + manyBlocks(step.contacts, step.leaders)
		if step.contacts == 0 {
			text = strings.Replace(text, "  limit   = 0\n", "", 1) // no limit
		}
		if step.where {
			text = strings.Replace(text, "  limit   = ", "  where   = lead.company != \"\"\n  limit   = ", 2)
			text = strings.Replace(text, "  refresh = \"30d\"\n", "", 1)
		}
		if step.refreshOn {
			text = strings.Replace(text, "  refresh = ", "  refresh_on = [\"company\"]\n  refresh = ", 1)
		}
		files := fstest.MapFS{"main.leads.hcl": {Data: []byte(text)}}
		if step.exclude {
			excludeFiles(files, before)
		}
		at := At(60).Add(step.after)
		wantSum, want, _ := partialApplyFiles(t, whole, wholeDir, files, step.targets, step.saved, true, at)
		gotSum, got, loads := partialApplyFiles(t, part, partDir, files, step.targets, step.saved, false, at)
		sameApply(t, i, step.loads, loads, wantSum, gotSum, want, got)
		if step.exclude && wantSum.NotSpent.Excluded == 0 {
			t.Errorf("step %d: nobody excluded", i)
		}
		before = want
		if n := enrichedAt(got, at); n == 0 {
			t.Errorf("step %d: no one enriched", i)
		}
	}
}
