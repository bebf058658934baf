package backendtest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// partialEnrichFolds are the events of a run of enrichments, each folded
// one after the other into the state read whole and into a partial
// state: a refresh with another e-mail (history), a person known by page
// name only, named so and found in another letter case, re-keyed by the
// result's networkId (the lead lists of the searches that found them
// change), a result naming another person's networkId, a person the
// state does not hold, an erased person (Fay: the credits spent, the
// result not kept), the pending note, unknown outcome and void of a
// call, the enrichment of a person whose outcome was unknown, and a copy
// of another workspace's enrichment (a claim's outcome).
func partialEnrichFolds() []state.Event {
	enrich := func(min int, id string, r person.EnrichedProfile) state.Event {
		return state.Event{At: At(min), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: id, Credits: 1, Result: r}}
	}
	note := func(min int, kind state.EventKind, id string) state.Event {
		e := state.Event{At: At(min), Kind: kind, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: id, Credits: 1}}
		if kind == state.EventEnrichUnknown {
			e.Failure = &state.Failure{Message: "the connection was lost"}
		}
		return e
	}
	valid := person.StatusValid
	return []state.Event{
		note(40, state.EventEnrichPending, "n10"),
		enrich(41, "n10", person.EnrichedProfile{NetworkID: "n10", PageName: "kim", FullName: "Kim", Email: "kim@other.example", ValidationStatus: valid}),
		note(42, state.EventEnrichPending, "page:zed_z"),
		enrich(43, "page:zed_z", person.EnrichedProfile{NetworkID: "n30", PageName: "Zed_Z", FullName: "Zed", Email: "zed@acme.example", ValidationStatus: valid}),
		enrich(44, "n1", person.EnrichedProfile{NetworkID: "n2", PageName: "ben", FullName: "Ben", Email: "ben@acme.example"}),
		enrich(45, "", person.EnrichedProfile{PageName: "ULI", FullName: "Uli", Email: "uli@acme.example"}),
		enrich(46, "n99", person.EnrichedProfile{NetworkID: "n99", PageName: "nora", FullName: "Nora", Email: "nora@acme.example"}),
		enrich(47, "n6", person.EnrichedProfile{NetworkID: "n6", PageName: "fay", FullName: "Fay", Email: "fay@acme.example"}),
		note(48, state.EventEnrichPending, "n5"),
		note(49, state.EventEnrichUnknown, "n5"),
		note(50, state.EventEnrichPending, "n21"),
		note(51, state.EventEnrichVoid, "n21"),
		enrich(52, "n5", person.EnrichedProfile{NetworkID: "n5", PageName: "eve", FullName: "Eve", Email: "eve@acme.example"}),
		{At: At(53), Kind: state.EventReuse, Address: "enrich.contacts", Reuse: &state.ReuseEvent{PersonID: "n22", Workspace: "dach",
			Enrichment: state.Enrichment{EnrichedAt: At(52), By: "enrich.leads", Result: person.EnrichedProfile{NetworkID: "n22", PageName: "BEN", Email: "ben2@acme.example"}}}},
		{At: At(54), Kind: state.EventReuse, Address: "enrich.contacts", Reuse: &state.ReuseEvent{PersonID: "page:élise", Workspace: "dach",
			Enrichment: state.Enrichment{EnrichedAt: At(52), By: "enrich.leads", Result: person.EnrichedProfile{PageName: "élise", Email: "elise@acme.example"}}}},
	}
}

// testPartialEnrichFolds: the events of a run of enrichments leave the
// same stored state whether they are folded into the state read whole or
// into a partial state, which reads what each fold changes first; and
// the partial state's counts of the blocks' enrichments
// (State.EnrichedCounts) follow them, as the store counts them.
func testPartialEnrichFolds(t *testing.T, k Kind) {
	open, wholeOpen := k.New(t), k.New(t)
	setup := append(partialFoldSetup(), partialFolds()...)
	Apply(t, open("", Alice), setup)
	Apply(t, wholeOpen("", Alice), setup)
	foldEachAlike(t, open, wholeOpen, partialEnrichFolds())
	enrichCountsFollow(t, k.New(t), setup)
}

// enrichCountsFollow folds every event of partialEnrichFolds into one
// partial state, as an apply does, and checks its counts of each block's
// enrichments and copies after each against those of the state read
// whole (state.NamesOf), then the state committed.
func enrichCountsFollow(t *testing.T, open func(string, Who) backend.Backend, setup []state.Event) {
	Apply(t, open("", Alice), setup)
	b := open("", Bob)
	defer backend.Close(b)
	l, base, s := lockedPartial(t, b, "apply")
	defer l.Unlock()
	rec, err := b.OpenJournal(s)
	must(t, err, "open journal")
	evs := partialEnrichFolds()
	for i, e := range evs {
		must(t, rec.Append(&e), "append %d", i)
		must(t, s.Fold(e), "fold %d", i)
		made, copied, ok := s.EnrichedCounts()
		if !ok {
			t.Fatal("a partial state gives no counts of its enrichments")
		}
		want := state.NamesOf(Fold(t, append(slices.Clone(setup), evs[:i+1]...)).People)
		if d := cmp.Diff(nonZero(want.Enriched), nonZero(made)); d != "" {
			t.Errorf("event %d (%s): the enrichments by block differ (-whole +partial):\n%s", i, e.Kind, d)
		}
		if d := cmp.Diff(nonZero(want.Copied), nonZero(copied)); d != "" {
			t.Errorf("event %d (%s): the copies by block differ (-whole +partial):\n%s", i, e.Kind, d)
		}
	}
	must(t, rec.Close(), "close the journal")
	must(t, base.Close(), "close the base")
	must(t, b.Commit(s), "commit")
	got, err := loadOnce(open("", Alice))
	must(t, err, "load")
	same(t, Fold(t, append(slices.Clone(setup), evs...)), got, "the state after one apply of every enrichment (-folded whole +partial)")
}

// nonZero is m without its zero counts.
func nonZero(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// partialEnrichSteps are the configurations applied one after the other
// (after the api block), each that long after the first: an enrich block
// of two searches' people at its limit, with places left under a larger
// limit (taken by the people the store names: placesWalk), its
// enrichments refreshed once stale (targeted: the plan of an enrich block
// the store's indexes answer, plan.EnrichReadsOf), the block planned
// when the places walk cannot decide it (the census of the enrichments
// does: nothing is loaded whole), the block with a new search among its
// sources (its people, read as the search is folded in, take no place:
// the block's places are counted from the store's counts, not from the
// people read), places left and refreshes at once, and saved plans of
// refreshes and of nothing to do (made again at the time they were
// made).
var partialEnrichSteps = []struct {
	limit int
	// more is a search added to the configuration and the block's from.
	more    bool
	targets []string
	after   time.Duration
	// saved applies a plan saved by plan --out (with targets) instead.
	saved bool
	// loads is how often the apply loads the state whole: once for a
	// state never written (no store yet), once when the block's plan
	// needs every person.
	loads int
	// idle: nothing is stale, the apply enriches no one.
	idle bool
	// exclude adds exclude blocks (excludeFiles) naming people of the
	// state the step before left; refreshOn, refresh_on = ["company"];
	// profile, a profile block of an enriched person's page name in upper
	// case (profileOf).
	exclude, refreshOn, profile bool
}{
	{limit: 2, loads: 1},
	{limit: 3, after: 20 * day},
	{limit: 3, targets: []string{"enrich.contacts"}, after: 31 * day},
	{limit: 3, targets: []string{"enrich.contacts"}, after: 32 * day, idle: true},
	{limit: 3, more: true, after: 52 * day},
	{limit: 5, more: true, targets: []string{"enrich.contacts"}, after: 63 * day},
	{limit: 5, more: true, targets: []string{"enrich.contacts"}, after: 100 * day, saved: true},
	{limit: 5, more: true, targets: []string{"enrich.contacts"}, after: 101 * day, saved: true, idle: true},
	{limit: 5, more: true, targets: []string{"enrich.contacts"}, after: 140 * day, exclude: true},
	{limit: 9, more: true, targets: []string{"enrich.contacts"}, after: 175 * day, saved: true, exclude: true},
	{limit: 9, more: true, after: 215 * day, exclude: true},
	{limit: 9, more: true, targets: []string{"enrich.contacts"}, after: 250 * day, refreshOn: true},
	{limit: 12, more: true, targets: []string{"enrich.contacts"}, after: 290 * day, saved: true, refreshOn: true, exclude: true},
	{limit: 12, more: true, after: 330 * day, refreshOn: true, profile: true},
}

const day = 24 * time.Hour

// enrichBlocks are the searches and the enrich block of a step.
func enrichBlocks(limit int, more bool) string {
	from, u := "search.t, search.s", ""
	if more {
		from, u = from+", search.u", searchU
	}
	return searchS(3) + searchT + u + fmt.Sprintf(`enrich "contacts" {
  from    = [%s]
  limit   = %d
  refresh = "30d"
}
`, from, limit)
}

// testPartialEnrichApply: an apply of an enrich block at its limit runs
// on a partial state on a backend that reads people on request (it loads
// nothing whole), refreshes the same people, and leaves the same stored
// state and shows the same summary as the apply that loads the state
// whole, against the same sandbox.
func testPartialEnrichApply(t *testing.T, k Kind) {
	whole, part := partialPair(t, k)
	wholeDir, partDir := t.TempDir(), t.TempDir()
	var before *state.State
	for i, step := range partialEnrichSteps {
		text := sandboxOneCallAtATime + enrichBlocks(step.limit, step.more)
		if step.refreshOn {
			text = strings.Replace(text, "  refresh = ", "  refresh_on = [\"company\"]\n  refresh = ", 1)
		}
		files := fstest.MapFS{"main.leads.hcl": {Data: []byte(text)}}
		if step.exclude {
			excludeFiles(files, before)
		}
		if step.profile {
			text += profileOf(before)
			files["main.leads.hcl"] = &fstest.MapFile{Data: []byte(text)}
		}
		at := At(60).Add(step.after)
		wantSum, want, _ := partialApplyFiles(t, whole, wholeDir, files, step.targets, step.saved, true, at)
		gotSum, got, loads := partialApplyFiles(t, part, partDir, files, step.targets, step.saved, false, at)
		sameApply(t, i, step.loads, loads, wantSum, gotSum, want, got)
		if step.exclude && wantSum.NotSpent.Excluded == 0 {
			t.Errorf("step %d: nobody excluded", i)
		}
		before = want
		switch n := enrichedAt(got, at); {
		case step.idle && n != 0:
			t.Errorf("step %d: %d enrichments refreshed, want none", i, n)
		case !step.idle && step.after > 0 && step.loads == 0 && n == 0:
			t.Errorf("step %d: no enrichment refreshed", i)
		}
	}
}

// enrichedAt counts the people of st enriched at at.
func enrichedAt(st *state.State, at time.Time) int {
	n := 0
	for _, p := range st.People {
		if p.Enrichment != nil && p.Enrichment.EnrichedAt.Equal(at) {
			n++
		}
	}
	return n
}

// excludeFiles adds to files exclude blocks naming people of st: by page
// name the first person holding no enrichment and the first holding
// one, and by domain the company domain of the second person holding
// one (which names the colleagues of the same company too).
func excludeFiles(files fstest.MapFS, st *state.State) {
	var pages []string
	var domain string
	enriched := 0
	for _, id := range slices.Sorted(maps.Keys(st.People)) {
		p := st.People[id]
		if p.Enrichment == nil {
			if len(pages) == 0 && p.Lead.PageName != "" {
				pages = append(pages, p.Lead.PageName)
			}
			continue
		}
		if enriched++; enriched == 1 && p.Lead.PageName != "" {
			pages = append(pages, p.Lead.PageName)
		} else if domain == "" && enriched > 1 {
			domain = p.Enrichment.Result.CompanyDomain
		}
	}
	files["pages.csv"] = &fstest.MapFile{Data: []byte("Page\n" + strings.Join(pages, "\n") + "\n")}
	files["domains.csv"] = &fstest.MapFile{Data: []byte("Domain\nnobody.example\n" + domain + "\n")}
	text := string(files["main.leads.hcl"].Data) + `exclude "pages" {
  file   = "pages.csv"
  column = "Page"
  by     = "page_name"
}
exclude "rivals" {
  file   = "domains.csv"
  column = "Domain"
  by     = "domain"
}
`
	files["main.leads.hcl"] = &fstest.MapFile{Data: []byte(text)}
}

// profileOf is a profile block of the first person of st holding an
// enrichment, by their page name in upper case: its read in the run may
// show them changed (refresh_on), and the plan reads them whole.
func profileOf(st *state.State) string {
	for _, id := range slices.Sorted(maps.Keys(st.People)) {
		if p := st.People[id]; p.Enrichment != nil && p.Lead.PageName != "" {
			return fmt.Sprintf("profile \"watched\" {\n  page_name = %q\n}\n", strings.ToUpper(p.Lead.PageName))
		}
	}
	return ""
}
