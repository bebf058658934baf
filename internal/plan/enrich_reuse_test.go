package plan

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// reuseWorld gives about half of the worlds other workspaces holding
// enrichments (a ReuseLookup over a random map, Options.ReuseHeld its
// keys): of some of the people, by network ID or page name, fresh or
// old, made at the company they work at now, at another, or at another
// domain of it; and of people this workspace does not hold. Some of this
// workspace's enrichments name their company's domain (sameEmployer then
// asks for it). In some worlds the keys cannot be listed, or find more
// people than maxReuseRead (set to 2): those plans read every person. In
// some the other workspaces are for another market (elsewhere.apart):
// their keys name nobody here, a plan that knows it reads nobody for them.
// It reports whether the world has other workspaces.
func reuseWorld(rng *rand.Rand, f *fixture, o *Options) bool {
	if rng.IntN(2) == 0 {
		return false
	}
	ew := &elsewhere{held: map[string]state.Reusable{}}
	ages := []time.Duration{day, 5 * day, 20 * day, 100 * day, 400 * day}
	// A few companies, each known here by one or two domains (or none).
	company := func(g int) string { return fmt.Sprintf("Co %d", g) }
	domain := func(g, k int) string { return fmt.Sprintf("co-%d-%d.example", g, k) }
	for _, id := range sortedPeople(f.st) {
		p := f.st.People[id]
		g := rng.IntN(4)
		p.Lead.Company = company(g)
		if e := p.Enrichment; e != nil && g > 0 && rng.IntN(3) == 0 {
			e.Result.Company, e.Result.CompanyDomain = company(g), domain(g, rng.IntN(2))
		}
		keys := state.LookupKeys(p)
		if len(keys) == 0 || rng.IntN(3) == 0 {
			continue
		}
		at := t0.Add(-ages[rng.IntN(len(ages))])
		ws := []string{"dach", "uk"}[rng.IntN(2)]
		r := heldAt(ws, at, "r-"+id+"@x.example", company(g), domain(g, rng.IntN(3)))
		switch rng.IntN(6) {
		case 0: // made at a former employer
			r = heldAt(ws, at, r.Enrichment.Result.Email, company((g+1)%4), domain((g+1)%4, 0))
		case 1: // the same company, by a domain nobody here knows
			r.Enrichment.Result.CompanyDomain = "elsewhere.example"
		}
		ew.held[keys[rng.IntN(len(keys))]] = r
	}
	for i := range rng.IntN(4) {
		ew.held["n:nobody-"+string(rune('a'+i))] = heldIn("uk", t0.Add(-day), "n@x.example", "nobody")
	}
	world := rng.IntN(12)
	if world >= 10 {
		ew.apart()
	}
	o.Reuse = ew.lookup
	fails := world == 0
	o.ReuseHeld = func() ([]string, error) {
		if fails {
			return nil, errors.New("the other workspaces cannot be read")
		}
		return slices.Collect(maps.Keys(ew.held)), nil
	}
	return true
}

// apart makes e a workspace for another market: it holds enrichments
// only of people this workspace does not hold ("nobody" keys).
func (e *elsewhere) apart() {
	maps.DeleteFunc(e.held, func(k string, _ state.Reusable) bool {
		return !strings.HasPrefix(k, "n:nobody-")
	})
	e.held["p:nobody-there"] = heldIn("uk", t0.Add(-day), "n@x.example", "nobody")
}

// Networked finds people by network ID, as a store's index does
// (state.NetworkFinder).
func (m enrichMemStore) Networked(nids []string) ([]string, error) {
	want := map[string]bool{}
	for _, n := range nids {
		want[n] = true
	}
	var out []string
	for id, p := range m.st.People {
		if p.Lead.NetworkID != "" && want[p.Lead.NetworkID] {
			out = append(out, id)
		}
	}
	return out, nil
}

// Paged finds people by page key (state.PageFinder).
func (m enrichMemStore) Paged(keys []string) ([]string, error) {
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	var out []string
	for id, p := range m.st.People {
		if p.Lead.PageName != "" && want[state.PageKey(p.Lead.PageName)] {
			out = append(out, id)
		}
	}
	return out, nil
}

// countReuse adds r to the counts of worlds with other workspaces
// (others): planned in part, copying, of them walked and from the census.
func countReuse(n [4]int, r enrichPlanned, others bool) [4]int {
	if !others || !r.compared {
		return n
	}
	n[0]++
	if r.reused {
		n[1]++
		switch {
		case r.census:
			n[3]++
		case r.walked:
			n[2]++
		}
	}
	return n
}

// setReuseKnobs sets maxReuseRead in the random worlds of seed: mostly
// the default, else 2 (past it in most worlds reusing); maxReusePrefix,
// which a few places left pass at 8 or 64 (firstHeld); and maxReuseKeys,
// 4 in a third of the worlds (scanKeyed).
func setReuseKnobs(seed int) {
	maxReuseRead = []int{100_000, 100_000, 100_000, 2}[seed%4]
	maxReusePrefix = []int{100_000, 8, 64}[seed/4%3]
	maxReuseKeys = []int{4_000_000, 4_000_000, 4}[seed/12%3]
}

// countPast counts a world compared with the whole state's plan whose
// other workspaces EnrichReadsOf read past maxReuseRead: at the limit,
// reading no one for the copies (n[0], reuseFacts.unread), or, with a
// tiny maxReuseRead, the people who may be copied alone (n[1], mayCopy),
// or only the first of them the block meets (n[2], firstHeld).
func countPast(n [3]int, r enrichPlanned, facts *EnrichFacts) [3]int {
	switch {
	case !r.compared || facts == nil || facts.reuse == nil:
	case facts.reuse.unread:
		n[0]++
	case facts.reuse.partial:
		n[2]++
	case maxReuseRead < 10 && len(facts.reuse.held) > 0:
		n[1]++
	}
	return n
}

// TestReuseAsksOnlyThePeopleHeld: over a state read in part, the plan
// of a block with places left asks the other workspaces about the people
// their keys find (2 of 40), and no other, not even the people it read
// whole for the places or in sketch (whose page name is not read). It
// copies and pays for the people the whole state's plan does.
func TestReuseAsksOnlyThePeopleHeld(t *testing.T) {
	people := ids(1, 40)
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), people...)
	f.enrich("all", []string{"search.cto"}, 12, 30*day)
	for _, id := range people[:10] {
		f.enriched(id, "enrich.all", t0.Add(-40*day)) // stale: read in sketch
	}
	ew := &elsewhere{held: map[string]state.Reusable{
		"n:" + people[20]:      heldIn("dach", t0.Add(-day), "u@x.example", people[20]),
		"p:page-" + people[30]: heldIn("uk", t0.Add(-day), "v@x.example", people[30]),
		"n:nobody":             heldIn("uk", t0.Add(-day), "w@x.example", "nobody"),
	}}
	var calls [][]string // the keys of each lookup
	lookup := func(keys []string) (map[string]state.Reusable, error) {
		calls = append(calls, slices.Sorted(slices.Values(keys)))
		return ew.lookup(keys)
	}
	o := Options{Now: t0, Offline: true, Targets: []string{"enrich.all"}, Reuse: lookup,
		ReuseHeld: func() ([]string, error) { return slices.Collect(maps.Keys(ew.held)), nil }}
	r := planOfEnrich(t, 0, f, o)
	if !r.compared || !r.reused {
		t.Fatalf("planned in part: %v, copied: %v", r.compared, r.reused)
	}
	var want []string
	for _, id := range []string{people[20], people[30]} {
		want = append(want, state.LookupKeys(f.st.People[id])...)
	}
	// The plan over the people read asks first, the whole state's plan
	// then about everyone to enrich.
	slices.Sort(want)
	if len(calls) != 2 || !slices.Equal(calls[0], want) {
		t.Errorf("the lookups %v, the first (the plan read in part) want %v", calls, want)
	}
}

// firstHeldWorld is the world of seed of TestEnrichReadsMakeTheSamePlan
// with maxReuseRead 2, maxReusePrefix 8 or 64 and maxHeldRead 1 in two
// thirds of the worlds (firstHeld, heldMet), a third of which read no
// more (heldListedPart past any list); others says it has other
// workspaces (reuseWorld).
func firstHeldWorld(seed int) (f *fixture, o Options, others bool) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0xe4c4))
	setReadKnobs(rng, seed)
	f, o = enrichWorld(rng)
	maxReuseRead, maxReusePrefix = 2, []int{8, 64}[seed%2]
	maxHeldRead = []int{100_000, 1, 1}[seed/2%3]
	heldListedPart = []int{2, 2, 1 << 30}[seed/6%3]
	return f, o, reuseWorld(rng, f, &o)
}

// TestReuseFirstHeldMakesTheSamePlan: in the random worlds of
// TestEnrichReadsMakeTheSamePlan with other workspaces, maxReuseRead 2
// and maxReusePrefix 8 or 64, a block with a few places left reads only
// the first people held it meets (firstHeld): every plan made so is the
// whole state's, byte for byte, and some copy. Some meet a person held
// not read before their copies took every place. They read the people
// held from there on (heldMet), and those past the places to count them
// (heldToEnrich). Past maxHeldRead (1 in two thirds of the worlds) they
// read on, a page at a time, up to half the people their sources list
// (heldReadMost), at most half the state's people: some are planned so,
// having read fewer people than the state holds. Past both, they need
// everyone. An apply over the people read copies as over the whole state
// (sameReuses).
// LEADSYNC_REUSE_WORLDS plans more. Seed 62969 always runs: an apply
// that left out the people held met (WalkedIDs) copied another person.
func TestReuseFirstHeldMakesTheSamePlan(t *testing.T) {
	defer keepReadKnobs()()
	worlds := fromEnv("LEADSYNC_REUSE_WORLDS", 1600)
	read, copied, met, applied, everyone, past := 0, 0, 0, 0, 0, 0
	censused, censusApplied := 0, 0 // from the census, none of the people held read up front
	for _, seed := range seedsAnd(worlds, 62969) {
		f, o, others := firstHeldWorld(seed)
		if !others {
			continue
		}
		b := enrichBase(f.st)
		_, facts, ok, _ := EnrichReadsOf(f.cfg, b.Records, o, b)
		if !ok || facts.reuse == nil || !facts.reuse.partial {
			continue
		}
		r := planOfEnrich(t, seed, f, o)
		if !r.compared {
			everyone++
			continue
		}
		if r.heldRead > maxHeldRead {
			// One count of the state's people, not the lead lists' lengths.
			size, err := b.CountPeople()
			if err != nil {
				t.Fatal(err)
			}
			if most := max(maxHeldRead, size/heldListedPart); r.heldRead > most {
				t.Fatalf("seed %d: %d people held read past maxHeldRead %d, of %d people: more than %d", seed, r.heldRead, maxHeldRead, size, most)
			}
			past++
		}
		read++
		copied += btoi(r.reused)
		switch {
		case r.heldRead > 0:
			// The apply reads the people held the plan read (WalkedIDs).
			met++
			n, _, _, _ := sameReuses(t, seed, f, o)
			applied += btoi(n > 0)
		case r.census && r.reused:
			// The apply reads those it meets, in pages (readHeldMet).
			censused++
			n, _, _, _ := sameReuses(t, seed, f, o)
			censusApplied += btoi(n > 0)
		}
	}
	t.Logf("%d worlds copying from the census, %d applied alike", censused, censusApplied)
	if censusApplied < 50 {
		t.Fatalf("%d worlds copying from the census applied alike: the test no longer tests the census beside people held not read", censusApplied)
	}
	t.Logf("%d worlds read the first people held: %d planned so (%d copying, %d reading people held as met, %d applied alike, %d past maxHeldRead), %d needed everyone", read+everyone, read, copied, met, applied, past, everyone)
	if read < 30 || copied < 10 || met < 10 || applied < 5 || past < 2 {
		t.Fatalf("%d worlds planned from the first people held (%d copying, %d reading people held as met), %d needing everyone: the test no longer tests firstHeld and heldMet", read, copied, met, everyone)
	}
}
