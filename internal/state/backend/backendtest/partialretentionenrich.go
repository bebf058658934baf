package backendtest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/plan"
)

// retentionEnrich is an enrich block of the people of search.s and
// search.t with a limit: retentionSteps beside it enrich some of them,
// whom retention then removes while they hold an enrichment and the lead
// lists of s and t name them.
func retentionEnrich(limit int) string {
	return fmt.Sprintf(`enrich "contacts" {
  from  = [search.t, search.s]
  limit = %d
}
`, limit)
}

// testPartialRetentionEnrich: an apply with leadsync { retention } and an
// enrich block the store's counts answer (plan.EnrichReadsOf), from the
// configuration or a saved plan, where people retention removes hold
// enrichments and are listed by the searches' records, runs on a partial
// state (it loads nothing whole): the plan takes them out of the store's
// counts. With the limit raised by two, the places left are those of the
// whole state's plan. It leaves the same state and summary as the apply
// that loads the state whole. So it does when more people go than a plan
// reads whole (plan.SetMaxExpiredRead): the plan, saved or the apply's,
// reads them in the kept form (Expired.ReadKept), and the apply's fold
// of their removal reads them a page at a time, none whole
// (state/removal.go).
func testPartialRetentionEnrich(t *testing.T, k Kind) {
	for i, saved := range []bool{false, true, false, true} {
		if i == 2 {
			defer plan.SetMaxExpiredRead(0)()
		}
		whole, part := partialPair(t, k)
		wholeDir, partDir := t.TempDir(), t.TempDir()
		for _, step := range retentionSteps {
			text := sandboxOneCallAtATime + step.blocks + retentionEnrich(3)
			partialApplyAt(t, whole, wholeDir, text, step.targets, false, true, At(step.at))
			partialApplyAt(t, part, partDir, text, step.targets, false, false, At(step.at))
		}
		before := checkExpiredIDs(t, part)
		held := 0
		for _, id := range before.Expired(90*time.Minute, At(240)) {
			if p := before.People[id]; p.Enrichment != nil && len(p.FoundBy) > 0 {
				held++
			}
		}
		if held == 0 {
			t.Fatal("nobody retention removes holds an enrichment: the test checks no count")
		}
		text := sandboxOneCallAtATime + retentionBlocks + retentionEnrich(5)
		wantSum, want, _ := partialApplyAt(t, whole, wholeDir, text, nil, saved, true, At(240))
		gotSum, got, loads := partialApplyAt(t, part, partDir, text, nil, saved, false, At(240))
		what := fmt.Sprintf("with an enrich block, saved plan %v, kept %v", saved, i >= 2)
		if loads != 0 {
			t.Errorf("%s: the apply of retention loaded the state whole %d times, want 0", what, loads)
		}
		if wantSum.Enriched == 0 || len(got.People) >= len(before.People) {
			t.Errorf("%s: the apply enriched %d and left %d of %d people: the test checks no place", what, wantSum.Enriched, len(got.People), len(before.People))
		}
		if d := cmp.Diff(summaryJSON(t, wantSum), summaryJSON(t, gotSum)); d != "" {
			t.Errorf("%s: the summaries differ (-whole +partial):\n%s", what, d)
		}
		same(t, want, got, what+": the state after the apply of retention differs (-whole +partial)")
	}
}
