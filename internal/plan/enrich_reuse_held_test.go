package plan

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/state"
)

// TestWithinOverPeopleHeldUnread: in the worlds of
// TestReuseFirstHeldMakesTheSamePlan whose plan reads people held
// elsewhere as it meets them (heldMet), apply checks the saved plan as
// run.applyRead.within does. Its facts are made with the other
// workspaces' lookup (run.partialEnrich), but Within lends no
// enrichment. The plan made again over the partial state is then the
// whole state's without the other workspaces, byte for byte, and reads
// nobody for copies (reuseFacts.read). The saved plan, copies and all, is
// within it. Before env.heldUnread, every such world panicked on a nil
// map (env.asked). Beside several blocks, the copies of one block leave
// another more calls than the plan made again (seed 109, 4904; to a
// block with a limit in 4990, 5295, 5583, 6005; each always runs):
// Within lends them (copiesLent), so the saved plan holds over the
// whole state. The partial state's answer, when it decides, is the
// whole state's.
func TestWithinOverPeopleHeldUnread(t *testing.T) {
	defer keepReadKnobs()()
	checked, decided := 0, 0
	for _, seed := range seedsAnd(1600, 4904, 4990, 5295, 5583, 6005) {
		f, o, others := firstHeldWorld(seed)
		if !others {
			continue
		}
		if r := planOfEnrich(t, seed, f, o); !r.compared || r.heldRead == 0 {
			continue
		}
		checked++
		saved, _ := Build(f.cfg, f.st, o)
		decided += btoi(sameWithout(t, seed, f, o, saved))
		st, facts := readPartial(t, seed, f, o)
		read, err := saved.WithinRead("saved.plan", f.cfg, st, facts, nil, nil)
		werr := saved.Within("saved.plan", f.cfg, f.st)
		if werr != nil {
			t.Fatalf("seed %d: the saved plan, applied at once, is refused over the whole state: %v", seed, werr)
		}
		if err != nil && !facts.many || read && facts.many && (err == nil) != (werr == nil) {
			t.Fatalf("seed %d: the saved plan over the partial state: %v (over the whole state: %v)", seed, err, werr)
		}
	}
	t.Logf("%d worlds read people held as met: %d decided without the other workspaces", checked, decided)
	if checked < 10 || decided < 5 {
		t.Fatalf("%d worlds read people held as met, %d decided: the test no longer tests Within over them", checked, decided)
	}
}

// sameWithout reports whether the plan of saved made again as Within
// makes it (without the other workspaces) over the partial state of an
// apply (readPartial, its facts made with them) decides; it fails t when
// that plan is not the whole state's made so.
func sameWithout(t *testing.T, seed int, f *fixture, o Options, saved *Plan) bool {
	t.Helper()
	wo := Options{Now: saved.CreatedAt, Targets: saved.Targets, Replace: saved.Replace, Offline: true, FileExists: o.FileExists}
	want, _ := Build(f.cfg, f.st, wo)
	st, facts := readPartial(t, seed, f, o)
	wo.Enrich = facts
	got, _ := Build(f.cfg, st, wo)
	if again := facts.Recount(); again != nil {
		facts, wo.Enrich = again, again
		got, _ = Build(f.cfg, st, wo)
	}
	if facts.reuse != nil && facts.reuse.read > 0 {
		t.Fatalf("seed %d: the plan made again without the other workspaces read %d people held elsewhere for copies", seed, facts.reuse.read)
	}
	if facts.Err() != nil || facts.NeedsEveryone() {
		return false
	}
	if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
		t.Fatalf("seed %d: the plan made again without the other workspaces over the partial state differs (-whole +read):\n%s", seed, d)
	}
	return true
}

// TestHeldPagesGrow: with one place left and no copy taking it, the
// people held met unread are read in pages that double up to walkChunk
// (heldPage): 100,000 of them in 32 reads, not the 5,556 of pages of
// 18. The last page stops at the most the plan reads (heldReadMost), and
// one more read asks for one person, which makes the plan need everyone
// (readAsked).
func TestHeldPagesGrow(t *testing.T) {
	defer keepReadKnobs()()
	walkChunk = 4096
	const most = 100_000
	r := &reuseFacts{}
	reads := 0
	for r.read < most {
		r.page = r.heldPage(1, most)
		r.read += r.page
		reads++
	}
	if reads > 40 || r.read != most {
		t.Errorf("%d people held read in %d pages, want %d in at most 40", r.read, reads, most)
	}
	if n := r.heldPage(1, most); n != 1 {
		t.Errorf("past the most read the page is %d people, want 1 (the plan then needs everyone)", n)
	}
}

// TestHeldCopiesPastThePlacesNotCounted: the plan over a state read in
// part counts the people held elsewhere past the places it did not read
// (heldToEnrich). Those another workspace gives an enrichment of are
// copies, not people to enrich. A block of limit 22 owns 20 fresh
// enrichments, which another block may enrich again. Two copies take its
// two places. Past them, four people held not read are copies. A fifth,
// excluded, was read whole (excludedReads). The plan is the whole
// state's, a bound of 2 calls (32 and a search's new person).
func TestHeldCopiesPastThePlacesNotCounted(t *testing.T) {
	defer keepReadKnobs()()
	maxReuseRead, maxReusePrefix = 2, 8
	people := ids(1, 40)
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), people...)
	f.search("search.new", kw("CEO"), refresh(5*day), maxResults(1))
	f.ran("search.new", t0.Add(-6*day), people[:20]...)
	f.enrich("all", []string{"search.cto", "search.new"}, 22, 30*day)
	f.enrich("other", []string{"search.cto"}, 0, day/2)
	for _, id := range people[:20] {
		f.enriched(id, "enrich.all", t0.Add(-day))
	}
	for _, id := range people[20:30] {
		f.enriched(id, "enrich.other", t0.Add(-day))
	}
	ew := &elsewhere{held: map[string]state.Reusable{}}
	for _, id := range append([]string{people[30]}, people[32:]...) {
		ew.held["n:"+id] = heldIn("dach", t0.Add(-day), "h@x.example", id)
	}
	// 40 is excluded, and was enriched elsewhere at a former employer.
	f.exclude("rivals", listfile.Company, lead(people[39]).Company)
	ew.held["n:"+people[39]] = heldAt("dach", t0.Add(-day), "h@x.example", "Former Inc", "former.example")
	o := Options{Now: t0, Offline: true, Targets: []string{"enrich.all"}, Reuse: ew.lookup,
		ReuseHeld: func() ([]string, error) { return slices.Collect(maps.Keys(ew.held)), nil }}
	r := planOfEnrich(t, 0, f, o)
	if !r.compared || !r.reused || r.heldRead == 0 {
		t.Fatalf("planned in part: %v, copying: %v, people held read: %d", r.compared, r.reused, r.heldRead)
	}
	p, _ := Build(f.cfg, f.st, o)
	if c := p.Change("enrich.all"); c == nil || c.CallsMax != 2 || c.Reuses != 2 {
		t.Fatalf("the change of enrich.all: %+v, want 2 copies and a bound of 2 calls", c)
	}
}

// TestDueAmongSparesTheFresh: of the people held elsewhere a plan counts
// without reading them (heldToEnrich), it reads only those the store's
// sketches show due for the block (dueAmong, as needsEnrich tells): not
// one holding an enrichment of it still fresh, nor one enriched by
// another block a day ago, but one whose enrichment is stale and one not
// enriched.
func TestDueAmongSparesTheFresh(t *testing.T) {
	people := ids(1, 4)
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), people...)
	e := f.enrich("all", []string{"search.cto"}, 2, 30*day)
	f.enrich("other", []string{"search.cto"}, 0, 30*day)
	f.enriched(people[0], "enrich.all", t0.Add(-day))
	f.enriched(people[1], "enrich.all", t0.Add(-60*day))
	f.enriched(people[2], "enrich.other", t0.Add(-day))
	v := newEnv(f.cfg, f.st, t0)
	v.facts = &EnrichFacts{store: enrichBase(f.st)}
	due, err := v.dueAmong(e, people)
	if want := []string{people[1], people[3]}; err != nil || !slices.Equal(due, want) {
		t.Fatalf("due among the people held: %v, %v; want %v", due, err, want)
	}
}

// TestFindHeldListsOnce: at the limit, a plan whose other workspaces'
// keys cannot be listed needs everyone, and lists them once, however
// often it asks for the people held (findHeld, reuseFacts.unlisted).
func TestFindHeldListsOnce(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), ids(1, 3)...)
	e := f.enrich("all", []string{"search.cto"}, 1, 30*day)
	listed := 0
	keys := func() ([]string, error) {
		listed++
		return nil, errors.New("the other workspaces cannot be read")
	}
	v := newEnv(f.cfg, f.st, t0)
	v.lookup = (&elsewhere{}).lookup
	v.facts = &EnrichFacts{store: enrichBase(f.st), reuse: &reuseFacts{unread: true, list: heldLister{keys: keys}}}
	for range 3 {
		if v.findHeld(e) {
			t.Fatal("the people held found without their keys")
		}
	}
	if listed != 1 || !v.facts.NeedsEveryone() {
		t.Fatalf("the keys listed %d times, the plan needing everyone: %v; want once, and so", listed, v.facts.NeedsEveryone())
	}
}

// TestWithinLendsNoPlaceBeyondALimit: in seed 109 of firstHeldWorld,
// block e0 (limit 20) copies two people whom e1 (no limit, a shorter
// refresh) then enriches, one call more than the plan made again without
// the other workspaces gives e1. Within lends e1 that call (copiesLent),
// and the saved plan holds. A plan edited to give e0 more than its 7
// calls made again, or e1 more than every call the two make again (10),
// is refused, though its totals stay within. In seed 6005, e0's six
// copies leave e1 (limit 4, no place taken) 4 calls where the plan made
// again gives it none, and e0 makes 7: Within lends e1 its 4 places, and
// refuses a fifth call (lendable).
func TestWithinLendsNoPlaceBeyondALimit(t *testing.T) {
	defer keepReadKnobs()()
	for _, edit := range []struct {
		seed int
		addr string
		more int
	}{{109, "enrich.e0", 3}, {109, "enrich.e1", 7}, {6005, "enrich.e1", 1}} {
		f, o, _ := firstHeldWorld(edit.seed)
		saved, _ := Build(f.cfg, f.st, o)
		if err := saved.Within("saved.plan", f.cfg, f.st); err != nil {
			t.Fatalf("seed %d: the saved plan, applied at once: %v", edit.seed, err)
		}
		edited := withMoreCalls(saved, edit.addr, edit.more)
		if err := edited.Within("saved.plan", f.cfg, f.st); !errors.Is(err, ErrBeyondConfig) || !strings.Contains(err.Error(), " "+edit.addr+",") {
			t.Errorf("seed %d: %s given %d calls more: %v, want it refused", edit.seed, edit.addr, edit.more, err)
		}
	}
}

// withMoreCalls is p edited to give the change of addr more calls, its
// totals unchanged.
func withMoreCalls(p *Plan, addr string, more int) *Plan {
	edited := *p
	edited.Changes = slices.Clone(p.Changes)
	for i, c := range edited.Changes {
		if c.Address == addr {
			m := *c
			m.Calls, m.CallsMax = m.Calls+more, m.CallsMax+more
			edited.Changes[i] = &m
		}
	}
	return &edited
}
