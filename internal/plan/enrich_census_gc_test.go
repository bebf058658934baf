package plan

import (
	"math/rand/v2"
	"runtime/debug"
	"testing"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/testenv"
)

// TestCensusPagesLowerTheCollectorsGoal plans worlds where a block with a
// where counts its people to enrich in pages (candidatePages): while it
// evaluates where there, GOGC is censusGCPercent (pagesGC), and the
// plan, once built, sets it back. A plan of the whole state leaves it.
func TestCensusPagesLowerTheCollectorsGoal(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	before := testenv.GCPercent()
	defer func(n, m, p, c int) {
		walkChunk, maxCounted, maxPlacesRead, maxCensusRead = n, m, p, c
	}(walkChunk, maxCounted, maxPlacesRead, maxCensusRead)
	defer func(m func(*config.Config, *config.Enrich, person.Lead) (bool, error)) { match = m }(match)
	for seed := range 3000 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x9a6e))
		walkChunk, maxCounted, maxPlacesRead, maxCensusRead = 4096, 1<<20, 100_000, 1<<30
		f, o, _ := manyWorld(rng)
		useNumberMatch(false)
		numbers := match
		seen := map[int]int{}
		match = func(cfg *config.Config, e *config.Enrich, l person.Lead) (bool, error) {
			seen[testenv.GCPercent()]++
			return numbers(cfg, e, l)
		}
		for _, e := range f.cfg.Enriches {
			e.RefreshOn = nil
		}
		whereAtLimit(rng, f, &o)
		r := planOfEnrich(t, seed, f, o)
		if now := testenv.GCPercent(); now != before {
			t.Fatalf("seed %d: GOGC %d after the plans, %d before", seed, now, before)
		}
		if !r.paged {
			continue
		}
		if seen[censusGCPercent] == 0 || seen[before] == 0 {
			t.Fatalf("seed %d: where evaluated at GOGC %v: want %d in the census' pages and %d over the whole state", seed, seen, censusGCPercent, before)
		}
		return
	}
	t.Fatal("no world counted its people to enrich in pages")
}

// TestLargeCensusLowersTheCollectorsGoal plans worlds whose block with a
// where takes a census and reads its people to enrich whole (no pages):
// from censusGCMembers members, where is evaluated at censusGCPercent;
// below, at GOGC as it was. The plan sets it back either way.
func TestLargeCensusLowersTheCollectorsGoal(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	before := testenv.GCPercent()
	defer func(n, m, p, c, g int) {
		walkChunk, maxCounted, maxPlacesRead, maxCensusRead, censusGCMembers = n, m, p, c, g
	}(walkChunk, maxCounted, maxPlacesRead, maxCensusRead, censusGCMembers)
	defer func(m func(*config.Config, *config.Enrich, person.Lead) (bool, error)) { match = m }(match)
	for _, from := range []int{1, 1 << 40} {
		censusGCMembers = from
		found := false
		for seed := 0; seed < 3000 && !found; seed++ {
			rng := rand.New(rand.NewPCG(uint64(seed), 0x6c0b))
			walkChunk, maxCounted, maxPlacesRead, maxCensusRead = 4096, 1<<20, 100_000, 1<<30
			f, o, _ := manyWorld(rng)
			useNumberMatch(false)
			numbers := match
			seen := map[int]int{}
			match = func(cfg *config.Config, e *config.Enrich, l person.Lead) (bool, error) {
				seen[testenv.GCPercent()]++
				return numbers(cfg, e, l)
			}
			whereOn(rng, f, &o)
			r := planOfEnrich(t, seed, f, o)
			if now := testenv.GCPercent(); now != before {
				t.Fatalf("seed %d: GOGC %d after the plans, %d before", seed, now, before)
			}
			if !r.compared || !r.census || r.paged || r.recounted || len(seen) == 0 {
				continue
			}
			found = true
			if lowered := seen[censusGCPercent] > 0; lowered != (from == 1) {
				t.Fatalf("seed %d, censusGCMembers %d: where evaluated at GOGC %v", seed, from, seen)
			}
		}
		if !found {
			t.Fatalf("censusGCMembers %d: no world read its census' people whole", from)
		}
	}
}

// TestManyBlocksWalkingLowerTheCollectorsGoal checks readGC: a block of
// several (EnrichFacts.many) walking its places over censusGCMembers
// members lowers GOGC to censusGCPercent until the plan is built
// (settle); one block alone, or fewer members, leaves it.
func TestManyBlocksWalkingLowerTheCollectorsGoal(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer func(g int) { censusGCMembers = g }(censusGCMembers)
	censusGCMembers = 3
	sources := []source{{addr: "search.a", ids: state.IDsOf([]string{"1", "2"})}, {addr: "search.b", ids: state.IDsOf([]string{"2"})}}
	for _, c := range []struct {
		many    bool
		sources []source
		want    int
	}{
		{true, sources, censusGCPercent},
		{false, sources, 100},
		{true, sources[:1], 100},
	} {
		v := &env{facts: &EnrichFacts{many: c.many}}
		v.readGC(c.sources)
		if got := testenv.GCPercent(); got != c.want {
			t.Errorf("many %v, %d sources: GOGC %d while the block walks, want %d", c.many, len(c.sources), got, c.want)
		}
		v.settle()
		if got := testenv.GCPercent(); got != 100 {
			t.Errorf("many %v: GOGC %d once the plan is built, want 100", c.many, got)
		}
	}
}

// A plan that read people retention removes in the kept form holds their
// IDs and index: it lowers GOGC to keptGCPercent until it is built
// (keptGC), and a plan that read nobody so keeps it.
func TestKeptPeopleLowerTheCollectorsGoal(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	kept := &Expired{IDs: state.PackIDs([]string{"a", "b"}), Kept: true}
	kept.gone = newKeptGone(kept.IDs)
	kept.gone.add(1, state.KeptPerson{ID: "b"})
	for _, c := range []struct {
		e    *Expired
		want int
	}{
		{kept, keptGCPercent},
		{&Expired{IDs: kept.IDs, Kept: true, gone: newKeptGone(kept.IDs)}, 100},
		{nil, 100},
	} {
		v := &env{}
		v.keptGC(c.e)
		if got := testenv.GCPercent(); got != c.want {
			t.Errorf("%+v: GOGC %d while the plan is built, want %d", c.e, got, c.want)
		}
		v.settle()
		if got := testenv.GCPercent(); got != 100 {
			t.Errorf("GOGC %d once the plan is built, want 100", got)
		}
	}
}

// A user's GOGC wins (docs/decisions.md): lowerGC leaves the collector's
// goal as they set it, above censusGCPercent or not.
func TestAUsersGOGCWins(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	t.Setenv("GOGC", "400")
	restore := pagesGC()
	if got := testenv.GCPercent(); got != 400 {
		t.Errorf("GOGC %d while the census pages, want the user's 400", got)
	}
	restore()
	if got := testenv.GCPercent(); got != 400 {
		t.Errorf("GOGC %d once set back, want 400", got)
	}
}
