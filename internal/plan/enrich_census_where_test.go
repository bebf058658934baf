package plan

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestWhereCountedInPagesMakesTheSamePlan plans 1,500 random worlds of
// several blocks (manyWorld), one of them with a where that fails to
// evaluate on some people in a quarter of them (and fixedWhereSeeds),
// over the whole state and over what EnrichReadsOf names, with pages of
// 1 to 2,000 people. A
// block with a where that can take no place counts its people to enrich
// read a page at a time (candidatePages): its plan, and the message of a
// where that fails, must be the whole state's, byte for byte.
func TestWhereCountedInPagesMakesTheSamePlan(t *testing.T) {
	defer func(n, m, p, c, g int) {
		walkChunk, maxCounted, maxPlacesRead, maxCensusRead, censusPage = n, m, p, c, g
	}(walkChunk, maxCounted, maxPlacesRead, maxCensusRead, censusPage)
	defer func(m func(*config.Config, *config.Enrich, person.Lead) (bool, error)) { match = m }(match)
	paged, failed, compared, sketched, sketchFailed, pagedWhole := 0, 0, 0, 0, 0, 0
	for _, seed := range append(seedsTo(1500), fixedWhereSeeds...) {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x9a6e))
		walkChunk = []int{1, 3, 4096}[rng.IntN(3)]
		maxCounted = []int{4, 1 << 20}[seed%2]
		maxPlacesRead = 100_000
		maxCensusRead = 1 << 30
		censusPage = []int{1, 2, 5, state.PeoplePage}[seed%4]
		f, o, _ := manyWorld(rng)
		useNumberMatch(rng.IntN(2) == 0)
		if rng.IntN(2) == 0 {
			for _, e := range f.cfg.Enriches {
				e.RefreshOn = nil
			}
		}
		whereAtLimit(rng, f, &o)
		if rng.IntN(2) == 0 {
			profileOnSketch(rng, f)
		}
		r := planOfEnrich(t, seed, f, o)
		if r.sketchFailed {
			sketchFailed++
		}
		if !r.compared {
			continue
		}
		compared++
		if r.sketchWhere {
			sketched++
		}
		if r.pagedWhole {
			pagedWhole++
		}
		if r.paged {
			paged++
			if r.failed {
				failed++
			}
		}
	}
	t.Logf("1500 worlds with a where: %d compared, %d counted its people to enrich in pages (%d failing alike to evaluate it); %d evaluated it on people read in sketch, %d failed on one (needed everyone); %d read some whole, a profile block reading their page", compared, paged, failed, sketched, sketchFailed, pagedWhole)
	if paged < 40 || failed < 3 {
		t.Fatalf("%d worlds counted a where's people to enrich in pages, %d failing: the test no longer tests candidatePages", paged, failed)
	}
	if sketched < 100 || sketchFailed < 3 {
		t.Fatalf("%d worlds evaluated a where on sketches, %d failed on one: the test no longer tests whereSketches", sketched, sketchFailed)
	}
	if pagedWhole < 10 {
		t.Fatalf("%d worlds read sketches whole for their page: the test no longer tests pagedSketches", pagedWhole)
	}
}

// fixedWhereSeeds are worlds past the loop's that once made another plan:
// 8578, a person read in sketch who fails where and whose page a profile
// block reads (pagedSketches): the plan read in part stated one call
// fewer than the whole state's.
var fixedWhereSeeds = []int{8578}

// profileOnSketch gives f an unread profile block reading the page of a
// person whose enrichment is 40 days old or more (read in sketch by a
// block with a refresh) and who fails useNumberMatch's where, named as
// the network compares page names (api.PageKey): a read of this run may
// make that person pass it (pagedSketches).
func profileOnSketch(rng *rand.Rand, f *fixture) {
	var pages []string
	for _, id := range sortedPeople(f.st) {
		p := f.st.People[id]
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(p.Lead.LastName, ".p"), ".q"))
		if p.Enrichment != nil && t0.Sub(p.Enrichment.EnrichedAt) >= 40*day && p.Lead.PageName != "" && err == nil && n%3 == 0 {
			pages = append(pages, p.Lead.PageName)
		}
	}
	if len(pages) > 0 {
		f.profile("profile.pw", " "+strings.ToUpper(pages[rng.IntN(len(pages))])+" ")
	}
}

// seedsTo returns the seeds 0 to n-1.
func seedsTo(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// whereAtLimit gives a where to a block of f at its limit, if one is,
// and targets it in a third of the worlds; else to any block (whereOn).
func whereAtLimit(rng *rand.Rand, f *fixture, o *Options) {
	var full []*config.Enrich
	for _, e := range f.cfg.Enriches {
		held := 0
		for _, p := range f.st.People {
			if p.Enrichment != nil && (p.Enrichment.By == e.Address || p.Enrichment.CopiedBy == e.Address) {
				held++
			}
		}
		if e.Limit > 0 && held >= e.Limit {
			full = append(full, e)
		}
	}
	if len(full) == 0 {
		whereOn(rng, f, o)
		return
	}
	e := full[rng.IntN(len(full))]
	whereCompany(e)
	if rng.IntN(3) == 0 {
		o.Targets = []string{e.Address}
	}
}

// TestWhereOnSketchesBesideAProfileMakesTheSamePlan plans a block with a
// where whose stale enrichments (people read in sketch) fail it, beside a
// search that runs and brings one person, and a profile block that reads
// the page of one of them (3.p). A read of this run may make that one
// pass where, so the whole state's bound counts it beside the one flip
// the search brings: the plan read in part must state the same maximum,
// reading 3.p whole (pagedSketches) and leaving 6.p a sketch.
func TestWhereOnSketchesBesideAProfileMakesTheSamePlan(t *testing.T) {
	defer func(m func(*config.Config, *config.Enrich, person.Lead) (bool, error)) { match = m }(match)
	useNumberMatch(false) // a number divisible by 3 fails where
	f := newFixture()
	f.cfg.API.MaxCredits = 1 << 20
	a := f.search(`search.a["0"]`, kw("a"))
	f.ranRequest(a.Address, t0.Add(-day), a.Request, 0, "1.p", "2.p", "3.p", "6.p", "9.p")
	f.search("search.x", kw("x"), maxResults(1)) // runs: brings one person
	f.profile("profile.p0", "PAGE-3.p ")         // read by the network's page key
	e := f.enrich("e0", []string{a.Address}, 0, 30*day)
	whereCompany(e)
	for _, id := range []string{"3.p", "6.p"} {
		f.enriched(id, e.Address, t0.Add(-400*day)) // stale: read in sketch
	}
	o := Options{Now: t0, Offline: true, FileExists: func(string) bool { return true }}
	r, facts, ok, err := EnrichReadsOf(f.cfg, f.st, o, enrichBase(f.st))
	if err != nil || !ok {
		t.Fatalf("EnrichReadsOf: ok %v, %v", ok, err)
	}
	if !slices.Contains(r.Persons, "3.p") || slices.Contains(r.Persons, "6.p") || facts.pagedWhole != 1 {
		t.Fatalf("read whole %q (%d for their page): want 3.p, whose page profile.p0 reads, and not 6.p", r.Persons, facts.pagedWhole)
	}
	if got := planOfEnrich(t, 0, f, o); !got.compared || !got.sketchWhere {
		t.Fatalf("the plan was not compared with the whole state's, or evaluated no where on a sketch: %+v", got)
	}
}
