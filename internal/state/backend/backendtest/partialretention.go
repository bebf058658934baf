package backendtest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// retentionSteps fill a state for testPartialRetention: search.s and
// search.t at minute 60, search.u alone at minute 180 (some of its people
// are s's or t's, seen again).
var retentionSteps = []struct {
	blocks  string
	targets []string
	at      int
}{
	{blocks: searchS(3) + searchT, at: 60},
	{blocks: searchS(3) + searchT + searchU, targets: []string{"search.u"}, at: 180},
}

// retentionBlocks is the configuration of the apply that removes the
// people no search saw for 90 minutes, with a spreadsheet of them all.
const retentionBlocks = "leadsync {\n  retention = \"90m\"\n}\n" + `search "s" {
  for_each    = toset(["Berlin", "Hamburg"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 3
}
` + searchT + searchU + `export "all" {
  path = "out/all.csv"
  sheet "s" {
    from = [search.s, search.t, search.u]
  }
}
`

// testPartialRetention: the store lists the people no search has seen
// since a time (Base.ExpiredIDs, from the index people_last_seen) as
// State.Expired finds them, and an apply with leadsync { retention },
// from the configuration or a saved plan, runs on a partial state that
// reads them (it loads nothing whole): it leaves the same state, summary
// and spreadsheet as the apply that loads the state whole. So does one
// with an enrich block (testPartialRetentionEnrich).
func testPartialRetention(t *testing.T, k Kind) {
	for _, saved := range []bool{false, true} {
		whole, part := partialPair(t, k)
		wholeDir, partDir := t.TempDir(), t.TempDir()
		const api = "api {\n  sandbox = true\n  rate_limit = 50\n  parallelism = 2\n}\n"
		for _, step := range retentionSteps {
			partialApplyAt(t, whole, wholeDir, api+step.blocks, step.targets, false, true, At(step.at))
			partialApplyAt(t, part, partDir, api+step.blocks, step.targets, false, false, At(step.at))
		}
		before := checkExpiredIDs(t, part)
		wantSum, want, _ := partialApplyAt(t, whole, wholeDir, api+retentionBlocks, nil, saved, true, At(240))
		gotSum, got, loads := partialApplyAt(t, part, partDir, api+retentionBlocks, nil, saved, false, At(240))
		what := fmt.Sprintf("saved plan %v", saved)
		if loads != 0 {
			t.Errorf("%s: the apply of retention loaded the state whole %d times, want 0", what, loads)
		}
		if gone := len(before.People) - len(got.People); gone < 3 || len(got.People) < 3 {
			t.Errorf("%s: retention removed %d of %d people: the test removes too few or too many", what, gone, len(before.People))
		}
		if d := cmp.Diff(summaryJSON(t, wantSum), summaryJSON(t, gotSum)); d != "" {
			t.Errorf("%s: the summaries differ (-whole +partial):\n%s", what, d)
		}
		same(t, want, got, what+": the state after the apply of retention differs (-whole +partial)")
		if d := cmp.Diff(filesIn(t, wholeDir), filesIn(t, partDir)); d != "" {
			t.Errorf("%s: the spreadsheets differ (-whole +partial):\n%s", what, d)
		}
	}
	testPartialRetentionEnrich(t, k)
}

// checkExpiredIDs: the Base of open's state lists, at minute 240, the
// people State.Expired finds (at most those seen within a microsecond
// after the limit more), at retentions that keep everyone, some and
// nobody, and at the limit of those seen at minute 180 exactly; more than
// n is not ok. It returns the state.
func checkExpiredIDs(t *testing.T, open func(string, Who) backend.Backend) *state.State {
	t.Helper()
	b := open("", Alice)
	defer backend.Close(b)
	st, err := b.Load()
	must(t, err, "load")
	base, err := backend.OpenBase(b)
	must(t, err, "open the base")
	defer base.Close()
	now := At(240)
	for _, r := range []time.Duration{300 * time.Minute, 90 * time.Minute, 60 * time.Minute, time.Minute} {
		want, most := st.Expired(r, now), st.Expired(r-2*time.Microsecond, now)
		got, ok, err := base.ExpiredIDs(r, now, len(st.People))
		must(t, err, "ExpiredIDs")
		if !ok || !slices.IsSorted(got) || !isSubset(want, got) || !isSubset(got, most) {
			t.Fatalf("retention %s: ExpiredIDs = %q (ok %v), want %q", r, got, ok, want)
		}
		checkKeptExpired(t, base, st, r, now, got)
		if len(want) > 0 {
			if _, ok, _ := base.ExpiredIDs(r, now, len(want)-1); ok {
				t.Errorf("retention %s: %d people listed for at most %d", r, len(want), len(want)-1)
			}
		}
	}
	checkKept(t, base, st)
	if n := len(st.Expired(90*time.Minute, now)); n == 0 || n == len(st.People) {
		t.Fatalf("%d of %d people expire: the test checks no list", n, len(st.People))
	}
	return st
}

func isSubset(sub, of []string) bool {
	for _, id := range sub {
		if !slices.Contains(of, id) {
			return false
		}
	}
	return true
}
