package plan

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// moveWorld keeps some of the records of f's state where an earlier
// configuration kept them, and declares the moved blocks that bring them
// to f's addresses: a block renamed (all its instances: a search, an
// enrich block and the enrichments it made, a track and the people it
// read, an import), renamed twice (a chain of moved blocks), an
// instance under another for_each key, and sometimes a moved block that
// moves nothing. Given kinds, it moves only blocks of those. It reports
// whether it moved anything.
func moveWorld(t *testing.T, rng *rand.Rand, f *fixture, kinds ...kind.Kind) bool {
	t.Helper()
	var held []string
	for _, a := range f.st.MovableAddresses() {
		x, err := address.Parse(a)
		if err == nil && !x.IsModule() && len(x.Module) == 0 && x.Kind.Moves() && (len(kinds) == 0 || slices.Contains(kinds, x.Kind)) {
			held = append(held, a)
		}
	}
	if rng.IntN(4) == 0 {
		f.move(t, "search.never_held", "search.nor_here")
	}
	if len(held) == 0 {
		return false
	}
	var moves []state.Move // on the state: from where the configuration has it to where it was
	taken := map[string]bool{}
	take := func(from, to string) {
		if !taken[from] {
			taken[from] = true
			moves = append(moves, state.Move{From: from, To: to})
		}
	}
	for range 1 + rng.IntN(3) {
		a := held[rng.IntN(len(held))]
		blk := blockOf(a)
		switch k := rng.IntN(3); {
		case k == 2 && strings.HasSuffix(a, `"]`) && !taken[a]:
			old := strings.TrimSuffix(a, `"]`) + `_was"]`
			take(a, old)
			f.move(t, old, a)
		case k == 1:
			for _, h := range held {
				if blockOf(h) == blk {
					take(h, blk+"_v1"+h[len(blk):])
				}
			}
			f.move(t, blk+"_v1", blk+"_v2")
			f.move(t, blk+"_v2", blk)
		default:
			for _, h := range held {
				if blockOf(h) == blk {
					take(h, blk+"_old"+h[len(blk):])
				}
			}
			f.move(t, blk+"_old", blk)
		}
	}
	f.st = f.st.Moved(moves)
	return true
}

// movedOptions are o with the moves of f's moved blocks resolved as
// run.Plan resolves them (MovesOf over the store b), and whether it
// gave some.
func movedOptions(t *testing.T, seed int, f *fixture, b *state.Base, o Options) (Options, bool) {
	t.Helper()
	m, err := MovesOf(f.cfg, b)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	o.Moved = m
	return o, m != nil && len(m.Moves) > 0
}

// A renamed search block is planned from its lead lists read under the
// old addresses: no person is read, and the plan is the whole state's.
func TestMovedSearchesReadInPart(t *testing.T) {
	f := newFixture()
	f.search(`search.cto["Berlin"]`, kw("CTO", "city", "Berlin"))
	f.search(`search.cto["Hamburg"]`, kw("CTO", "city", "Hamburg"))
	f.search("search.other", kw("CEO"))
	f.ranRequest(`search.lead["Berlin"]`, t0.Add(-day), f.cfg.Searches[0].Request, 0, ids(1, 3)...)
	f.ranRequest(`search.lead["Hamburg"]`, t0.Add(-40*day), f.cfg.Searches[1].Request, 0, ids(3, 3)...)
	f.ranRequest("search.other", t0.Add(-day), f.cfg.Searches[2].Request, 0, ids(10, 2)...)
	f.enriched(ids(1, 1)[0], "enrich.gone", t0.Add(-day))
	f.move(t, "search.lead", "search.cto")
	b := storedBase(f.st)
	o, _ := movedOptions(t, 0, f, b, f.opts())
	r := ReadsOf(f.cfg, b.Records, o)
	if r.People || !slices.Equal(r.Searches, []string{`search.lead["Berlin"]`, `search.lead["Hamburg"]`, "search.other"}) || len(r.Persons) > 0 {
		t.Fatalf("reads %+v: want the three lead lists, under the addresses the state holds them at, and no person", r)
	}
	st, err := r.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := Build(f.cfg, st, o)
	want, _ := Build(f.cfg, f.st, f.opts())
	if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
		t.Fatalf("the plan read in part differs (-whole +read):\n%s", d)
	}
	if want.Totals.Moves != 2 || want.Totals.Searches != 0 {
		t.Errorf("totals %+v: want two moves and no search", want.Totals)
	}
	// Without the moves given, the plan reads every person.
	if r := ReadsOf(f.cfg, b.Records, f.opts()); !r.People {
		t.Errorf("reads %+v without Options.Moved: want every person", r)
	}
}

// A move of an address that people's records name besides found_by (an
// enrich block renamed) is planned from the store's counts asked under
// the old address (movedStore): EnrichReadsOf answers, reads no person
// in bulk, and the plan is the whole state's.
func TestMovedEnrichBlockReadsInPart(t *testing.T) {
	f := newFixture()
	f.search("search.a", kw("CTO"))
	f.ran("search.a", t0.Add(-day), ids(1, 5)...)
	f.enrich("contacts", []string{"search.a"}, 3, 30*day)
	f.enriched(ids(1, 1)[0], "enrich.old", t0.Add(-day))
	f.enriched(ids(2, 1)[0], "enrich.old", t0.Add(-40*day))
	f.move(t, "enrich.old", "enrich.contacts")
	b := enrichBase(f.st)
	o, ok := movedOptions(t, 0, f, b, f.opts())
	if !ok || !o.Moved.names {
		t.Fatalf("moves %+v: want the enrich block's, naming people", o.Moved)
	}
	r, facts, ok, err := EnrichReadsOf(f.cfg, b.Records, o, b)
	if err != nil || !ok || r.People {
		t.Fatalf("EnrichReadsOf = %+v, %v, %v: want an answer that reads no person in bulk", r, ok, err)
	}
	st, err := r.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	facts.Fill(st)
	o.Enrich = facts
	got, _ := Build(f.cfg, st, o)
	want, _ := Build(f.cfg, f.st, f.opts())
	if facts.NeedsEveryone() {
		t.Fatal("the plan read in part needs everyone")
	}
	if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
		t.Fatalf("the plan read in part differs (-whole +read):\n%s", d)
	}
	if want.Totals.Moves != 1 || want.Totals.Enrichments != 2 {
		t.Errorf("totals %+v: want the move, the stale enrichment refreshed and one place taken", want.Totals)
	}
}

// movedStore answers as a store of the state once moved would: each
// question about an address, and each answer naming one.
func TestMovedStoreAnswersAsMoved(t *testing.T) {
	f := newFixture()
	f.search("search.a", kw("CTO"))
	f.ran("search.a", t0.Add(-day), ids(1, 6)...)
	f.enrich("contacts", []string{"search.a"}, 3, 30*day)
	f.enrich("old", []string{"search.a"}, 3, 30*day) // configured again where a move leaves
	f.enriched(ids(1, 1)[0], "enrich.old", t0.Add(-day))
	f.enriched(ids(2, 1)[0], "enrich.old", t0.Add(-40*day))
	f.enriched(ids(3, 1)[0], "enrich.other", t0.Add(-40*day))
	f.enriched(ids(4, 1)[0], "enrich.contacts", t0.Add(-40*day))
	moves := []state.Move{{From: "enrich.old", To: "enrich.new"}, {From: "enrich.contacts", To: "enrich.old"}}
	m := &Moving{Moves: moves, names: true, to: map[string]string{}, from: map[string]string{}}
	for _, mv := range moves {
		m.to[mv.From], m.from[mv.To] = mv.To, mv.From
	}
	ix, ok := m.storeOf(enrichBase(f.st))
	if !ok {
		t.Fatal("no movedStore over a state.Base")
	}
	moved := enrichBase(f.st.Moved(moves))
	for _, addr := range []string{"enrich.new", "enrich.old", "enrich.contacts", "enrich.other"} {
		for _, before := range []time.Time{{}, t0.Add(-30 * day)} {
			wn, _ := moved.CountEnrichedBefore(addr, before)
			gn, _ := ix.CountEnrichedBefore(addr, before)
			ws, _ := moved.Sketched(addr, before)
			gs, _ := ix.Sketched(addr, before)
			if wn != gn || !slices.Equal(sketchIDs(ws), sketchIDs(gs)) {
				t.Errorf("%s before %v: %d enrichments %v, want %d %v", addr, before, gn, sketchIDs(gs), wn, sketchIDs(ws))
			}
		}
	}
	wb, _ := moved.Enrichers()
	gb, _ := ix.Enrichers()
	slices.Sort(wb)
	slices.Sort(gb)
	if !slices.Equal(wb, gb) {
		t.Errorf("Enrichers %v, want %v", gb, wb)
	}
	ga, _ := ix.SketchedAmong(ids(1, 6))
	for _, p := range ga {
		if want := f.st.Moved(moves).People[p.ID].Enrichment.By; p.Enrichment.By != want {
			t.Errorf("SketchedAmong: %s enriched by %s, want %s", p.ID, p.Enrichment.By, want)
		}
	}
	if len(ga) != 4 {
		t.Errorf("SketchedAmong gave %d people, want 4", len(ga))
	}
	if f.st.People[ids(1, 1)[0]].Enrichment.By != "enrich.old" {
		t.Error("the store's person moved in place")
	}
}

// sketchIDs are the sorted IDs of ps.
func sketchIDs(ps []*state.Person) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	slices.Sort(out)
	return out
}

// movedSearchFacts are the facts of a plan that moves search.old, where
// the store holds people 1 and 2, to search.new, over f's store b.
func movedSearchFacts(t *testing.T) (f *fixture, b *state.Base, facts *EnrichFacts) {
	t.Helper()
	f = newFixture()
	f.search("search.new", kw("CTO"))
	f.ran("search.old", t0.Add(-day), ids(1, 2)...)
	f.move(t, "search.old", "search.new")
	b = enrichBase(f.st)
	m, err := MovesOf(f.cfg, b)
	if err != nil || m == nil || m.names {
		t.Fatalf("MovesOf = %+v, %v", m, err)
	}
	facts = &EnrichFacts{store: b}
	facts.movedBy(m)
	return f, b, facts
}

// The people a plan reads whole while Build runs (the places walk, the
// census) are moved as the state read was moved: their found_by names
// the searches where the moves put them, and the store's are unchanged.
func TestMovedFactsMoveThePeopleRead(t *testing.T) {
	f, _, facts := movedSearchFacts(t)
	ps, err := facts.people(ids(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids(1, 2) {
		if got := ps[id].FoundBy; !slices.Equal(got, []string{"search.new"}) {
			t.Errorf("%s found by %q, want search.new", id, got)
		}
		if got := f.st.People[id].FoundBy; !slices.Equal(got, []string{"search.old"}) {
			t.Errorf("the store's %s found by %q: moved in place", id, got)
		}
	}
}

// An apply holds the people its plan walked as the store holds them,
// not as the moves leave them (EnrichFacts.Hold): the engine folds the
// moves after, over every person alike.
func TestMovedFactsHoldThePeopleUnmoved(t *testing.T) {
	_, b, facts := movedSearchFacts(t)
	var err error
	if facts.censusRead, err = facts.people(ids(1, 2)); err != nil {
		t.Fatal(err)
	}
	st, err := b.Writable()
	if err != nil {
		t.Fatal(err)
	}
	if err := facts.Hold(st); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids(1, 2) {
		if p := st.People[id]; p == nil || !slices.Equal(p.FoundBy, []string{"search.old"}) {
			t.Errorf("%s not held as the store holds them (found by search.old)", id)
		}
	}
}
