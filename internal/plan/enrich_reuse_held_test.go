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
// Within lends them (loans), so the saved plan holds over the whole
// state. The partial state's answer, when it decides, is the whole
// state's.
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
// the other workspaces gives e1. Within lends e1 that call (loans),
// and the saved plan holds. A plan edited to give e0 more than its 7
// calls made again, or e1 more than every call the two make again (10),
// is refused, though its totals stay within. In seed 6005, e0's six
// copies leave e1 (limit 4, no place taken) 4 calls where the plan made
// again gives it none, and e0 makes 7: Within lends e1 its 4 places, and
// refuses a fifth call (loans.room).
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

// TestWithinLendsCallsMovedWithoutANewPlace: seeds of firstHeldWorld
// whose saved plan, applied at once, Within refused before it lent a
// block with a limit more than the places its limit leaves. In each, e0
// (limit 5,000,000) makes fewer calls than the plan made again without
// the other workspaces. e1 (limit 4, every place taken) makes more:
//   - 10586: e0 copies 14.p, whom e1's shorter refresh then enriches, in
//     a place e0 gives back by enriching two of e1's people
//     (freedPlaces);
//   - 15086: nothing is copied: e0 (limit 1, 8 used) cannot copy 7.p,
//     whom it would enrich again, so e1 enriches 7.p in its last place;
//   - 68750, 78422: e0 copies a person e1 enriched, whom e1 then
//     enriches again, which takes no place (loans.refreshes).
//
// Each is accepted, and refused once e1 is given one call more.
func TestWithinLendsCallsMovedWithoutANewPlace(t *testing.T) {
	defer keepReadKnobs()()
	for _, seed := range []int{10586, 15086, 68750, 78422} {
		f, o, _ := firstHeldWorld(seed)
		saved, _ := Build(f.cfg, f.st, o)
		again, _ := Build(f.cfg, f.st, Options{Now: saved.CreatedAt, Offline: true})
		if c, a := saved.Change("enrich.e1"), again.Change("enrich.e1"); c.CallsMax <= a.CallsMax {
			t.Fatalf("seed %d: enrich.e1 makes %d calls, %d made again: the world moves no call to it", seed, c.CallsMax, a.CallsMax)
		}
		if err := saved.Within("saved.plan", f.cfg, f.st); err != nil {
			t.Errorf("seed %d: the saved plan, applied at once: %v", seed, err)
		}
		edited := withMoreCalls(saved, "enrich.e1", 1)
		if err := edited.Within("saved.plan", f.cfg, f.st); !errors.Is(err, ErrBeyondConfig) || !strings.Contains(err.Error(), " enrich.e1,") {
			t.Errorf("seed %d: enrich.e1 given a call more: %v, want it refused", seed, err)
		}
	}
}

// TestWithinLendsFromOnePool: three blocks without a limit enrich 2
// people each. A plan edited to give b 2 calls that a spares is within
// the configuration (its totals unchanged); one that gives b and c 2
// each, their totals unchanged, is refused: the 2 calls a spares are lent
// once, not to each block. A plan made for a and b (--target), edited
// to give c the calls a spares, is refused: c is not called for.
func TestWithinLendsFromOnePool(t *testing.T) {
	f := newFixture()
	for i, name := range []string{"a", "b", "c"} {
		search := "search." + name
		f.search(search, kw(name))
		f.ran(search, t0.Add(-time.Hour), ids(10*i, 2)...)
		f.enrich(name, []string{search}, 0, 30*day)
	}
	p := f.build(t, Options{Now: t0, Offline: true})
	moved := withMoreCalls(withMoreCalls(p, "enrich.a", -2), "enrich.b", 2)
	if err := moved.Within("saved.plan", f.cfg, f.st); err != nil {
		t.Fatalf("2 calls moved from enrich.a to enrich.b: %v", err)
	}
	twice := withMoreCalls(moved, "enrich.c", 2)
	if err := twice.Within("saved.plan", f.cfg, f.st); !errors.Is(err, ErrBeyondConfig) || !strings.Contains(err.Error(), " enrich.c,") {
		t.Errorf("the 2 calls enrich.a spares lent to enrich.b and enrich.c: %v, want it refused", err)
	}
	targeted := f.build(t, Options{Now: t0, Offline: true, Targets: []string{"enrich.a", "enrich.b"}})
	c := *p.Change("enrich.c")
	targeted.Changes = append(targeted.Changes, &c)
	if err := withMoreCalls(targeted, "enrich.a", -2).Within("saved.plan", f.cfg, f.st); !errors.Is(err, ErrBeyondConfig) || !strings.Contains(err.Error(), "enrich enrich.c, which they do not call for") {
		t.Errorf("a plan for enrich.a and enrich.b giving enrich.c what enrich.a spares: %v, want it refused", err)
	}
}

// TestWithinCountsAPlaceGivenBackOnce: e1 (limit 2) enriched p and q.
// e0, first, of p alone, enriches p again (its refresh is shorter),
// which gives e1
// p's place back: e1 enriches r in it. A plan edited so that e1, not e0,
// enriches p (a call e0 spares) is refused: p keeps its place, so r has
// none, though e1's refresh of p takes no place (loans.refreshes). The
// place p gives back and p's refresh are one, not two.
func TestWithinCountsAPlaceGivenBackOnce(t *testing.T) {
	f := newFixture()
	p, q, r := "p", "q", "r"
	f.search("search.a", kw("a"))
	f.ran("search.a", t0.Add(-time.Hour), p, q, r)
	f.search("search.b", kw("b"))
	f.ran("search.b", t0.Add(-time.Hour), p)
	f.enrich("e0", []string{"search.b"}, 0, 30*day)
	f.enrich("e1", []string{"search.a"}, 2, 60*day)
	f.enriched(p, "enrich.e1", t0.Add(-40*day))
	f.enriched(q, "enrich.e1", t0.Add(-day))
	saved := f.build(t, Options{Now: t0, Offline: true})
	e0, e1 := saved.Change("enrich.e0"), saved.Change("enrich.e1")
	if !slices.Equal(e0.PersonIDs, []string{p}) || !slices.Equal(e1.PersonIDs, []string{r}) {
		t.Fatalf("enrich.e0 enriches %v, enrich.e1 %v; want [p] and [r]", e0.PersonIDs, e1.PersonIDs)
	}
	if err := saved.Within("saved.plan", f.cfg, f.st); err != nil {
		t.Fatalf("the saved plan, applied at once: %v", err)
	}
	edited := withMoreCalls(withMoreCalls(saved, "enrich.e0", -1), "enrich.e1", 1)
	edited.Change("enrich.e0").PersonIDs = nil
	edited.Change("enrich.e1").PersonIDs = []string{p, r}
	if err := edited.Within("saved.plan", f.cfg, f.st); !errors.Is(err, ErrBeyondConfig) || !strings.Contains(err.Error(), " enrich.e1,") {
		t.Errorf("enrich.e1 given p, whom enrich.e0 enriched: %v, want it refused", err)
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

// TestWithinLendsNoRefreshOfTheFresh: e1 (limit 2) enriched p and q,
// which both its places hold, 40 days ago; its refresh is 30 days, so
// the saved plan has e1 enrich them again beside e0's x and y. The
// configuration is then edited: e1's refresh goes to 90 days, and e0
// reads a second search (4 calls). e1 now enriches nobody again, so the
// 2 calls e0 spares are no room for it (loans.refreshes): the saved plan
// is refused. A plan edited so that e1 enriches p and q again while they
// are fresh, with the 2 calls e0 spares, is refused too.
func TestWithinLendsNoRefreshOfTheFresh(t *testing.T) {
	edited := refreshWorld(90*day, "search.b", "search.c")
	saved := refreshWorld(30*day, "search.b").build(t, Options{Now: t0, Offline: true})
	if e1 := saved.Change("enrich.e1"); e1.Action != Enrich || !slices.Equal(e1.PersonIDs, []string{"p", "q"}) {
		t.Fatalf("the saved plan's enrich.e1: %+v, want p and q enriched again", e1)
	}
	if c := edited.build(t, Options{Now: t0, Offline: true}).Change("enrich.e1"); c.Action != None {
		t.Fatalf("enrich.e1 after the edit: %+v, want nobody enriched again", c)
	}
	if err := saved.Within("saved.plan", edited.cfg, edited.st); !errors.Is(err, ErrBeyondConfig) || !strings.Contains(err.Error(), " enrich.e1,") {
		t.Errorf("the saved plan after e1's refresh went to 90 days: %v, want it refused", err)
	}
	fresh := refreshWorld(90*day, "search.b")
	forged := withMoreCalls(withMoreCalls(fresh.build(t, Options{Now: t0, Offline: true}), "enrich.e0", -2), "enrich.e1", 2)
	forged.Change("enrich.e1").Action = Enrich
	forged.Change("enrich.e1").PersonIDs = []string{"p", "q"}
	if err := forged.Within("saved.plan", fresh.cfg, fresh.st); !errors.Is(err, ErrBeyondConfig) || !strings.Contains(err.Error(), " enrich.e1,") {
		t.Errorf("a plan edited so that enrich.e1 enriches fresh p and q again: %v, want it refused", err)
	}
}

// refreshWorld is the world of TestWithinLendsNoRefreshOfTheFresh: e0
// enriches the people of its sources (x and y of search.b, u and v of
// search.c); e1 (limit 2, refresh given) enriched p and q of search.a 40
// days ago.
func refreshWorld(refresh time.Duration, from ...string) *fixture {
	f := newFixture()
	for _, s := range []struct {
		addr   string
		people []string
	}{{"search.a", []string{"p", "q"}}, {"search.b", []string{"x", "y"}}, {"search.c", []string{"u", "v"}}} {
		f.search(s.addr, kw(s.addr))
		f.ran(s.addr, t0.Add(-time.Hour), s.people...)
	}
	f.enrich("e0", from, 0, 30*day)
	f.enrich("e1", []string{"search.a"}, 2, refresh)
	for _, id := range []string{"p", "q"} {
		f.enriched(id, "enrich.e1", t0.Add(-40*day))
	}
	return f
}
