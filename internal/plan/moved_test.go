package plan

import (
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// move adds a moved block from -> to to the fixture's configuration.
func (f *fixture) move(t *testing.T, from, to string) {
	t.Helper()
	m, err := config.NewMove(from, to)
	if err != nil {
		t.Fatal(err)
	}
	f.cfg.Moves = append(f.cfg.Moves, m)
}

func TestMovedSearchesMakeNoCall(t *testing.T) {
	f := newFixture()
	f.search(`module.dach.search.cto["Berlin"]`, kw("CTO", "city", "Berlin"))
	f.search(`module.dach.search.cto["Hamburg"]`, kw("CTO", "city", "Hamburg"))
	f.ranRequest(`search.cto["Berlin"]`, t0.Add(-day), f.cfg.Searches[0].Request, 0, ids(1, 3)...)
	f.ranRequest(`search.cto["Hamburg"]`, t0.Add(-day), f.cfg.Searches[1].Request, 0, ids(3, 3)...)
	f.move(t, "search.cto", "module.dach.search.cto")
	p := f.build(t, f.opts())
	var lines []string
	for _, c := range p.Changes {
		lines = append(lines, string(c.Action)+" "+c.Address+" <- "+c.MovedFrom)
	}
	want := []string{
		`moved module.dach.search.cto["Berlin"] <- search.cto["Berlin"]`,
		`moved module.dach.search.cto["Hamburg"] <- search.cto["Hamburg"]`,
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if p.Totals.Moves != 2 || p.Totals.CallsMax != 0 || !p.HasChanges() {
		t.Errorf("totals %+v", p.Totals)
	}
	if f.st.Searches[`search.cto["Berlin"]`] == nil {
		t.Error("Build moved the state it was given")
	}
	// Without the moved block the same configuration runs both again.
	f.cfg.Moves = nil
	if p := f.build(t, f.opts()); p.Totals.Searches != 2 {
		t.Errorf("without moves: %d searches", p.Totals.Searches)
	}
}

// A renamed enrich block keeps its limit: what it enriched, and what it
// enriched of people erased since, still count.
func TestMovedEnrichKeepsItsLimit(t *testing.T) {
	f := newFixture()
	f.search("search.a", kw("CTO"))
	f.ran("search.a", t0.Add(-day), ids(1, 5)...)
	people := ids(1, 5)
	f.enriched(people[0], "enrich.old", t0.Add(-day))
	f.enriched(people[1], "enrich.old", t0.Add(-day))
	// Erased since (leadsync forget): the enrichment still counts.
	f.apply(state.Event{At: t0.Add(-day), Kind: state.EventForgetPeople, Address: state.PeopleAddress,
		People: &state.ForgetPeopleEvent{Reason: state.ForgetErasure, PersonIDs: []string{people[1]}}})
	if f.st.ErasedEnrichments["enrich.old"] != 1 {
		t.Fatalf("erased enrichments: %v", f.st.ErasedEnrichments)
	}
	f.enrich("new", []string{"search.a"}, 2, 0)
	if c := f.build(t, f.opts()).Change("enrich.new"); c.CallsMax != 2 {
		t.Fatalf("without the move enrich.new may enrich %d; want 2 (the fixture)", c.CallsMax)
	}
	f.move(t, "enrich.old", "enrich.new")
	p := f.build(t, f.opts())
	moved := p.Changes[0]
	if moved.Action != Moved || moved.Address != "enrich.new" || moved.MovedFrom != "enrich.old" || moved.Kind != kind.Enrich {
		t.Errorf("first change: %+v", moved)
	}
	c := p.Change("enrich.new")
	for _, x := range p.Changes {
		if x.Address == "enrich.new" && x.Action != Moved {
			c = x
		}
	}
	if c.Action == Enrich || c.CallsMax != 0 || p.Totals.CreditsMax != 0 {
		t.Errorf("the moved block enriches again: %+v (totals %+v)", c, p.Totals)
	}
}

func TestMovesRefused(t *testing.T) {
	f := newFixture()
	f.search("search.b", kw("CTO"))
	f.ran("search.a", t0.Add(-day), ids(1, 2)...)
	f.ran("search.b", t0.Add(-day), ids(3, 2)...)
	f.move(t, "search.a", "search.b")
	_, diags := Build(f.cfg, f.st, f.opts())
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "Cannot move onto an address with state") ||
		!strings.Contains(diags.Error(), "moves search.a to search.b, but the state already holds records at search.b") {
		t.Errorf("diagnostics: %v", diags)
	}

	// The instances of search.b count as records at search.b.
	f = newFixture()
	f.search("search.b", kw("CTO"))
	f.ran("search.a", t0.Add(-day), ids(1, 2)...)
	f.ran(`search.b["Berlin"]`, t0.Add(-day), ids(3, 2)...)
	f.move(t, "search.a", "search.b")
	_, diags = Build(f.cfg, f.st, f.opts())
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "Cannot move onto an address with state") ||
		!strings.Contains(diags.Error(), `moves search.a to search.b, but the state already holds records at search.b["Berlin"]: moving search.a to search.b would keep records of search.b both without a key and with keys`) {
		t.Errorf("diagnostics: %v", diags)
	}

	// A chain a -> b -> c with records at a and at b: two records for c.
	f = newFixture()
	f.search("search.c", kw("CTO"))
	f.ran("search.a", t0.Add(-day), ids(1, 2)...)
	f.ran("search.b", t0.Add(-day), ids(3, 2)...)
	f.move(t, "search.a", "search.b")
	f.move(t, "search.b", "search.c")
	_, diags = Build(f.cfg, f.st, f.opts())
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "Two records would move to one address") {
		t.Errorf("diagnostics: %v", diags)
	}
}

func TestMovesFollowChainsAndIgnoreWhatStateLacks(t *testing.T) {
	f := newFixture()
	f.search("search.c", kw("CTO"))
	f.ran("search.a", t0.Add(-day), ids(1, 2)...)
	f.move(t, "search.a", "search.b")
	f.move(t, "search.b", "search.c")
	f.move(t, "search.never", "search.c2")
	o := f.opts()
	o.Targets = []string{"search.c"}
	p := f.build(t, o)
	if len(p.Changes) == 0 || p.Changes[0].Action != Moved || p.Changes[0].Address != "search.c" || p.Changes[0].MovedFrom != "search.a" {
		t.Fatalf("changes: %+v", p.Changes)
	}
	if p.Totals.Moves != 1 {
		t.Errorf("moves = %d", p.Totals.Moves)
	}
}

// TestMovedChangeNamesEveryKindThatMoves: the moved change of a move of
// any kind that moves (internal/kind) names that kind, in and out of
// modules; before the table, a moved import was shown as a search.
func TestMovedChangeNamesEveryKindThatMoves(t *testing.T) {
	for _, k := range kind.Moving() {
		for _, addr := range []string{string(k) + ".b", "module.m." + string(k) + ".b"} {
			if got := kindOf(addr); got != k {
				t.Errorf("kindOf(%s) = %q, want %q", addr, got, k)
			}
		}
	}
}
