package plan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestManyEnrichBlocksMakeTheSamePlan plans 2,000 random worlds of two or
// three enrich blocks over disjoint or overlapping searches, with exclude
// blocks of every kind in some (excludeWorld), each block at its limit,
// with a few places left, a safety cap or no limit (planned from the
// census, as a block with nothing to enrich is), the enrichments shared
// between them (of every age, copied, of an unknown outcome), twice: over the
// whole state, and over what EnrichReadsOf names (enrichMany). Unless
// Build says it needs everyone, the plans must be the same, byte for
// byte: the blocks claim the same people in the same rounds
// (claimRounds), each walk reading the people it needs (claimsRead).
func TestManyEnrichBlocksMakeTheSamePlan(t *testing.T) {
	defer keepManyKnobs()()
	var reuse [4]int       // worlds with other workspaces (countReuse)
	var read, whole [2]int // 0: every block at its limit; 1: places left
	var census [2]int      // from the census (planned, needed everyone)
	worlds, widened, where, whereErr, excluded, unlimited, refreshOn := 0, 0, 0, 0, 0, 0, 0
	const seeds = 2000
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x3a7e))
		setReadKnobs(rng, seed)
		censusPage = []int{1, 2, 5, state.PeoplePage}[seed/4%4]
		f, o, left := manyWorld(rng)
		whereWorld(rng, f, &o)
		setReuseKnobs(seed)
		others := reuseWorld(rng, f, &o)
		b := enrichBase(f.st)
		_, facts, ok, err := EnrichReadsOf(f.cfg, b.Records, o, b)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if !ok {
			continue
		}
		if !facts.many {
			t.Fatalf("seed %d: %d blocks selected, answered as one", seed, len(f.cfg.Enriches))
		}
		worlds++
		r := planOfEnrich(t, seed, f, o)
		reuse = countReuse(reuse, r, others)
		k := 0
		if left {
			k = 1
		}
		switch {
		case r.census && r.compared:
			census[0]++
		case r.census:
			census[1]++
		case r.compared:
			read[k]++
		default:
			whole[k]++
		}
		if r.compared && r.excluded {
			excluded++
		}
		if r.compared && r.refreshOn {
			refreshOn++
		}
		if r.compared && slices.ContainsFunc(f.cfg.Enriches, func(e *config.Enrich) bool { return e.Limit <= 0 }) {
			unlimited++
		}
		if r.compared && widenedIn(t, f, o) {
			widened++
		}
		if r.compared && wheres(f.cfg.Enriches) {
			where++
			if r.failed {
				whereErr++
			}
		}
	}
	t.Logf("reuse across workspaces: %d worlds with other workspaces planned in part, %d copying (%d walked, %d from the census)", reuse[0], reuse[1], reuse[2], reuse[3])
	if reuse[0] < 400 || reuse[1] < 150 || reuse[2] < 25 || reuse[3] < 120 {
		t.Fatalf("worlds with other workspaces %v: the test no longer tests reuse", reuse)
	}
	t.Logf("%d of %d worlds of several blocks read in part: at the limit %d planned from what EnrichReadsOf names, %d needed everyone; with places left %d and %d; from the census %d and %d; %d read more people past their places; %d with a where (%d failing alike to evaluate it); %d with people excluded; %d with a block without a limit; %d with refresh_on",
		worlds, seeds, read[0], whole[0], read[1], whole[1], census[0], census[1], widened, where, whereErr, excluded, unlimited, refreshOn)
	if read[0] < 80 || read[1] < 220 || census[0] < 700 || census[1] < 25 || widened < 100 || where < 200 || whereErr < 12 || excluded < 300 || unlimited < 150 || refreshOn < 300 {
		t.Fatalf("worlds planned in part and needing everyone (at the limit, with places left, from the census): %v, %v, %v, %d widened, %d with people excluded, %d without a limit, %d with refresh_on: the test no longer tests several blocks", read, whole, census, widened, excluded, unlimited, refreshOn)
	}
}

// keepManyKnobs returns what sets back what the worlds of several blocks
// change: the read knobs (keepReadKnobs), censusPage and match.
func keepManyKnobs() (restore func()) {
	knobs, page, m := keepReadKnobs(), censusPage, match
	return func() { knobs(); censusPage, match = page, m }
}

// widenedIn reports whether the plan of f over what EnrichReadsOf names
// collected the blocks more than once (enrichClaims).
func widenedIn(t *testing.T, f *fixture, o Options) bool {
	t.Helper()
	b := enrichBase(f.st)
	r, facts, _, _ := EnrichReadsOf(f.cfg, b.Records, o, b)
	first := map[string]int{}
	for a, n := range facts.extra {
		first[a] = n
	}
	st, err := b.Reading(r.Searches, r.Persons)
	if err != nil {
		t.Fatal(err)
	}
	facts.Fill(st)
	po := o
	po.Enrich = facts
	Build(f.cfg, st, po)
	for a, n := range facts.extra {
		if n != first[a] {
			return true
		}
	}
	return false
}

// manyWorld is a world of enrichWorld with two or three enrich blocks of
// limits at or near what they use, all selected but for one block in some
// worlds; left says some block has places left.
func manyWorld(rng *rand.Rand) (*fixture, Options, bool) {
	f, o := enrichWorld(rng)
	o.Targets = nil
	var refs []string
	for _, s := range f.cfg.Searches {
		if strings.HasPrefix(s.Address, "search.a[") {
			refs = append(refs, s.Address)
		}
	}
	if len(f.cfg.Enriches) == 1 {
		f.enrich("e1", refs[rng.IntN(len(refs)):], 1, time.Duration([]int{0, 10, 60}[rng.IntN(3)])*day)
	}
	if rng.IntN(3) == 0 {
		f.enrich("e2", refs[:1+rng.IntN(len(refs))], 1, time.Duration([]int{0, 5, 30, 400}[rng.IntN(4)])*day)
	}
	shareEnrichments(rng, f)
	left := false
	v := newEnv(f.cfg, f.st, o.Now)
	for _, e := range f.cfg.Enriches {
		e.Limit = 1
		used := v.used(e)
		e.Limit = max(used+[]int{-2, 0, 0, 0, 1, 2, 5}[rng.IntN(7)], 1)
		switch rng.IntN(16) {
		case 0, 1:
			e.Limit = 5_000_000 // a safety cap
		case 2:
			e.Limit = 0 // none: every candidate
		}
		left = left || e.Limit > used
	}
	if len(f.cfg.Enriches) == 3 && rng.IntN(4) == 0 {
		for _, e := range f.cfg.Enriches[:2] {
			o.Targets = append(o.Targets, e.Address)
		}
	}
	return f, o, left
}

// shareEnrichments gives some people enrichments by the blocks after the
// first, of various ages, and some enrichments of an unknown outcome by
// them.
func shareEnrichments(rng *rand.Rand, f *fixture) {
	ages := []time.Duration{day, 7 * day, 20 * day, 40 * day, 400 * day}
	var others []*config.Enrich
	others = append(others, f.cfg.Enriches[1:]...)
	for i, id := range sortedPeople(f.st) {
		p := f.st.People[id]
		e := others[i%len(others)]
		switch rng.IntN(6) {
		case 0, 1:
			f.enriched(id, e.Address, t0.Add(-ages[rng.IntN(len(ages))]))
		case 2:
			if f.st.UnknownEnrichments[id] == nil && p.Enrichment == nil {
				f.st.UnknownEnrichments[id] = &state.UnknownEnrichment{At: t0.Add(-day), By: e.Address, Credits: 1}
			}
		}
	}
	if rng.IntN(3) == 0 {
		f.st.ErasedEnrichments[others[0].Address] = 1 + rng.IntN(2)
	}
}

// TestManyBlocksTakeTheCensusWhereNeeded plans the block of placesLeft (5
// places left among 3,000 people, 1,000 of them enriched by it) with a
// second block over the first search's 300 people that the places walk
// cannot plan: a safety cap (planned from the census at once), or at its
// limit with nothing to enrich (from the census once the walk could not
// decide it). Only the second block is planned from the census: the
// people read whole are the first block's 5 and, under the cap, the
// second's people to enrich (200), not the 2,000 the first block's
// census would read. At its limit the second block can take no place
// (countOnly): its 199 people to enrich are counted, not read.
func TestManyBlocksTakeTheCensusWhereNeeded(t *testing.T) {
	for _, tc := range []struct{ limit, read int }{{5_000_000, 205}, {1, 5}} {
		limit := tc.limit
		f, kept, e := placesLeft(placesBlock, day)
		cap := f.enrich("cap", []string{`search.a["0"]`}, limit, 0)
		if limit == 1 {
			f.enriched("0299.p", cap.Address, t0.Add(-day))
		}
		o := Options{Now: t0, Offline: true, FileExists: func(string) bool { return true }}
		store := &countingStore{enrichMemStore: enrichMemStore{memStore{f.st}}}
		b := state.NewStoredBase(storedBase(f.st).Records, kept, store)
		r, facts, ok, err := EnrichReadsOf(f.cfg, b.Records, o, b)
		if err != nil || !ok {
			t.Fatalf("limit %d: EnrichReadsOf: %v, %v", limit, ok, err)
		}
		st, err := b.Reading(r.Searches, r.Persons)
		if err != nil {
			t.Fatal(err)
		}
		facts.Fill(st)
		store.read = 0
		po := o
		po.Enrich = facts
		got, _ := Build(f.cfg, st, po)
		if again := facts.Recount(); again != nil {
			facts, po.Enrich = again, again
			got, _ = Build(f.cfg, st, po)
		}
		if facts.NeedsEveryone() || facts.Err() != nil {
			t.Fatalf("limit %d: the plan needs everyone (%v)", limit, facts.Err())
		}
		want, _ := Build(f.cfg, f.st, o)
		if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
			t.Fatalf("limit %d: the plan differs (-whole +read):\n%s", limit, d)
		}
		// Once a build: the first that needs the census, and the second.
		if !facts.censusOf[cap.Address] || facts.censusOf[e.Address] || store.read > 2*tc.read {
			t.Fatalf("limit %d: planned from the census: %v; %d people read whole, want the second block only and at most %d", limit, facts.censusOf, store.read, 2*tc.read)
		}
	}
}

// whereWorld gives a block of some worlds a where (through match: a lead
// passes when its person's number is not a multiple of 3), alone among
// the targets in some; errs says the where fails to evaluate on the
// numbers that are 16 modulo 17 in this world. A lead without a last
// name (a person read in sketch) fails to evaluate too: the plan must
// never evaluate one.
func whereWorld(rng *rand.Rand, f *fixture, o *Options) (errs bool) {
	errs = rng.IntN(4) == 0
	useNumberMatch(errs)
	if rng.IntN(3) > 0 {
		return errs
	}
	whereOn(rng, f, o)
	return errs
}

// useNumberMatch makes a where pass for a lead whose last name's number
// is not a multiple of 3, and fail to evaluate, with errs, for one of
// every 17 (restore match after).
func useNumberMatch(errs bool) {
	match = func(_ *config.Config, e *config.Enrich, l person.Lead) (bool, error) {
		if e.Where == nil {
			return true, nil
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSuffix(l.LastName, ".p"), ".q"))
		if err != nil || errs && n%17 == 16 {
			return false, fmt.Errorf("no number in %q", l.LastName)
		}
		return n%3 != 0, nil
	}
}

// whereOn gives a block of f picked by rng a where, and targets it in a
// third of the worlds.
func whereOn(rng *rand.Rand, f *fixture, o *Options) {
	e := f.cfg.Enriches[rng.IntN(len(f.cfg.Enriches))]
	whereCompany(e)
	if rng.IntN(3) == 0 {
		o.Targets = []string{e.Address}
	}
}
