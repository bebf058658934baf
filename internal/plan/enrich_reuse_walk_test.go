package plan

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestReusesLookAtThePeopleAnswered: an apply's copies (Reuses) look only
// at the people another workspace answered for. A where is evaluated for
// them alone, not for the block's other people (collectReused); the
// copies are those of the plan.
func TestReusesLookAtThePeopleAnswered(t *testing.T) {
	people := ids(1, 40)
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), people...)
	e := f.enrich("all", []string{"search.cto"}, 0, 30*day)
	whereCompany(e)
	ew := &elsewhere{held: map[string]state.Reusable{
		"n:" + people[3]:  heldIn("dach", t0.Add(-day), "a@x.example", people[3]),
		"n:" + people[17]: heldIn("uk", t0.Add(-2*day), "b@x.example", people[17]),
	}}
	var evaluated []string
	old := match
	match = func(_ *config.Config, _ *config.Enrich, l person.Lead) (bool, error) {
		evaluated = append(evaluated, l.NetworkID)
		return l.Company != "", nil
	}
	t.Cleanup(func() { match = old })
	reuses, err := NewCandidates(f.cfg, ew.lookup).Reuses(f.st, e, t0)
	if err != nil {
		t.Fatal(err)
	}
	var copied []string
	for _, r := range reuses {
		copied = append(copied, r.PersonID)
	}
	if want := []string{people[3], people[17]}; !slices.Equal(copied, want) {
		t.Errorf("copied %v, want %v", copied, want)
	}
	if want := []string{people[3], people[17]}; !slices.Equal(evaluated, want) {
		t.Errorf("the where was evaluated for %d people (%v), want only the 2 answered for", len(evaluated), evaluated)
	}
}

// TestReusesMakeTheCopiesOfTheWholeBlock: in random worlds (enrichWorld,
// reuseWorld), every enrich block's copies (Reuses, collectReused where it
// walks) are those collect gives of the whole block, in the same order,
// from the same workspaces, and the keys asked about are lookupReuse's.
func TestReusesMakeTheCopiesOfTheWholeBlock(t *testing.T) {
	const worlds = 800
	walked, copied, failed := 0, 0, 0
	for seed := range worlds {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x7e05))
		f, o := enrichWorld(rng)
		if !reuseWorld(rng, f, &o) {
			continue
		}
		got, want := NewCandidates(f.cfg, o.Reuse), NewCandidates(f.cfg, o.Reuse)
		for _, e := range f.cfg.Enriches {
			rs, err := got.Reuses(f.st, e, t0)
			v := want.env(f.st, t0)
			werr := v.lookupReuse([]*config.Enrich{e}, nil)
			var bp blockPeople
			if werr == nil {
				bp, werr = v.collect(e, nil, true)
			}
			if werr != nil || err != nil {
				if err != nil && werr == nil {
					t.Fatalf("seed %d %s: Reuses failed (%v), the whole block did not", seed, e.Address, err)
				}
				failed++
				continue
			}
			if !maps.Equal(got.asked, want.asked) {
				t.Fatalf("seed %d %s: asked about %d keys, the whole block %d", seed, e.Address, len(got.asked), len(want.asked))
			}
			if _, ok, _ := want.env(f.st, t0).collectReused(e); ok {
				walked++
			}
			if len(rs) != len(bp.reused) {
				t.Fatalf("seed %d %s: %d copies, the whole block %d", seed, e.Address, len(rs), len(bp.reused))
			}
			for i, r := range bp.reused {
				if rs[i].PersonID != r.p.ID || rs[i].From.Workspace != r.r.Workspace || !rs[i].From.Enrichment.EnrichedAt.Equal(r.r.Enrichment.EnrichedAt) {
					t.Fatalf("seed %d %s: copy %d is %s from %s, the whole block's %s from %s", seed, e.Address, i, rs[i].PersonID, rs[i].From.Workspace, r.p.ID, r.r.Workspace)
				}
			}
			if len(rs) > 0 {
				copied++
			}
		}
	}
	t.Logf("%d blocks walked, %d copying, %d failed alike", walked, copied, failed)
	if walked < 200 || copied < 100 {
		t.Errorf("only %d blocks walked and %d copying: the worlds no longer test collectReused", walked, copied)
	}
}
