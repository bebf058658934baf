package backendtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// movedSteps are the applies of testPartialMove after searches s, t and u
// ran (minute 60): s renamed r and t renamed twice (a chain of moved
// blocks) while u runs again (minute 120); then an instance of r given
// another key (minute 180); then the same configuration, whose moved
// blocks move nothing any more (minute 240).
var movedSteps = []struct {
	blocks string
	at     int
}{
	{blocks: searchS(3) + searchT + searchU + movedExport("s", "t"), at: 60},
	{blocks: strings.Replace(searchS(3), `search "s"`, `search "r"`, 1) + strings.Replace(searchT, `search "t"`, `search "t2"`, 1) +
		strings.Replace(searchU, "8", "9", 1) + movedExport("r", "t2") +
		movedBlock("search.s", "search.r") + movedBlock("search.t", "search.tx") + movedBlock("search.tx", "search.t2"), at: 120},
	{blocks: movedR + strings.Replace(searchT, `search "t"`, `search "t2"`, 1) + strings.Replace(searchU, "8", "9", 1) +
		movedExport("r", "t2") + movedBlock(`search.r["Hamburg"]`, `search.r["Munich"]`), at: 180},
	{blocks: movedR + strings.Replace(searchT, `search "t"`, `search "t2"`, 1) + strings.Replace(searchU, "8", "9", 1) +
		movedExport("r", "t2") + movedBlock(`search.r["Hamburg"]`, `search.r["Munich"]`), at: 240},
}

// movedR is search s renamed r, its Hamburg instance keyed Munich.
const movedR = `search "r" {
  for_each    = toset(["Berlin", "Munich"])
  keywords    = "Engineer"
  city        = each.value == "Munich" ? "Hamburg" : each.value
  max_results = 3
}
`

func movedBlock(from, to string) string {
	return fmt.Sprintf("moved {\n  from = %s\n  to   = %s\n}\n", from, to)
}

// movedExport is a spreadsheet of the people of searches a, b and u.
func movedExport(a, b string) string {
	return fmt.Sprintf("export \"all\" {\n  path = \"out/all.csv\"\n  sheet \"s\" {\n    from = [search.%s, search.%s, search.u]\n  }\n}\n", a, b)
}

// testPartialMove: an apply with moved blocks (a block renamed, one
// renamed twice, an instance given another key, beside a search that
// runs) runs on a partial state, from the configuration or a saved plan:
// it resolves the moves from the store's counts, loads nothing whole,
// and leaves the same state, summary and spreadsheet as the apply that
// loads the state whole.
func testPartialMove(t *testing.T, k Kind) {
	for _, saved := range []bool{false, true} {
		whole, part := partialPair(t, k)
		wholeDir, partDir := t.TempDir(), t.TempDir()
		const api = "api {\n  sandbox = true\n  rate_limit = 50\n  parallelism = 2\n}\n"
		for i, step := range movedSteps {
			what := fmt.Sprintf("saved plan %v, step %d", saved, i)
			wantSum, want, _ := partialApplyAt(t, whole, wholeDir, api+step.blocks, nil, saved && i > 0, true, At(step.at))
			gotSum, got, loads := partialApplyAt(t, part, partDir, api+step.blocks, nil, saved && i > 0, false, At(step.at))
			if i > 0 && loads != 0 {
				t.Errorf("%s: the apply loaded the state whole %d times, want 0", what, loads)
			}
			if i > 0 && i < 3 && (wantSum == nil || len(wantSum.Moved) == 0) {
				t.Errorf("%s: nothing moved", what)
			}
			if d := cmp.Diff(summaryJSON(t, wantSum), summaryJSON(t, gotSum)); d != "" {
				t.Errorf("%s: the summaries differ (-whole +partial):\n%s", what, d)
			}
			same(t, want, got, what+": the state after the apply differs (-whole +partial)")
			if d := cmp.Diff(filesIn(t, wholeDir), filesIn(t, partDir)); d != "" {
				t.Errorf("%s: the spreadsheets differ (-whole +partial):\n%s", what, d)
			}
		}
	}
	testPartialMoveEnrich(t, k)
}

// checkMovedNames fails t unless what moves ask of the state's people is
// answered alike by the state read whole and from the store's counts:
// the addresses to move (Base.Addressed), whether a move of from to to
// renames what people's records name (MovesNames), and the addresses of
// a partial state once moved (State.Moved of Base.Writable).
func checkMovedNames(t *testing.T, open func(string, Who) backend.Backend, from, to string) {
	t.Helper()
	b := open("", Bob)
	defer backend.Close(b)
	whole, err := b.Load()
	must(t, err, "load")
	l, err := b.Lock("check")
	must(t, err, "lock")
	defer l.Unlock()
	base, err := backend.OpenBase(b)
	must(t, err, "open base")
	defer base.Close()
	if !base.Stored() {
		return
	}
	addressed, err := base.Addressed()
	must(t, err, "addressed")
	var ms []state.Move
	for _, a := range whole.MovableAddresses() {
		if a == from || strings.HasPrefix(a, from+"[") || strings.HasPrefix(a, from+".") {
			ms = append(ms, state.Move{From: a, To: to + a[len(from):]})
		}
	}
	if d := cmp.Diff(whole.MovableAddresses(), addressed.MovableAddresses()); d != "" {
		t.Fatalf("mv %s %s: the addresses to move differ (-whole +store):\n%s", from, to, d)
	}
	if w, g := whole.MovesNames(ms), addressed.MovesNames(ms); w != g {
		t.Fatalf("mv %s %s: MovesNames %v over the whole state, %v from the store", from, to, w, g)
	}
	part, err := base.Writable()
	must(t, err, "writable")
	if d := cmp.Diff(whole.Moved(ms).MovableAddresses(), part.Moved(ms).MovableAddresses()); d != "" {
		t.Fatalf("mv %s %s: the addresses once moved differ (-whole +partial):\n%s", from, to, d)
	}
}
