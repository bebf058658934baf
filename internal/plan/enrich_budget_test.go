package plan

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// TestOneReadBudgetForThePlan: in the shared worlds of
// TestSharedBlocksClaimOnInPart (several blocks with limits sharing most
// of their people, their claims passing their walks) beside another
// workspace holding most of those people, made at another company (no
// copy) and known by ID alone (maxReuseRead 2: reuseFacts.partial), the
// claims and the people held both read whole by ID. They draw from one
// budget (EnrichFacts.budgeted): once people held were read, or the
// blocks collected again, the people read whole by ID are at most half
// the state's people (readsMost), whatever asked for them; past it the
// plan needs everyone. The store says it holds the people of the world,
// or fewer (sizedStore). So the people held the plan may read pass half
// the state (heldReadMost, maxHeldRead past it in half the worlds).
// Until the seventeenth round the two caps were apart: 2R people read
// whole by ID passed a state of 3R. Every plan made in part is the whole
// state's, byte for byte.
// LEADSYNC_BUDGET_WORLDS plans more.
func TestOneReadBudgetForThePlan(t *testing.T) {
	defer keepReadKnobs()()
	worlds := fromEnv("LEADSYNC_BUDGET_WORLDS", 120)
	var n struct{ both, everyone, planned int }
	for seed := range worlds {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xb0d9))
		f, kept, o := sharedWorld(rng)
		heldShared(rng, f, &o)
		maxPlacesRead = len(f.st.People) / 10
		maxReuseRead, maxReusePrefix, maxReuseKeys = 2, 100_000, 4_000_000
		maxHeldRead, heldListedPart = []int{1, 1 << 20}[seed%2], 2
		size := len(f.st.People) * []int{2, 3, 4}[seed/2%3] / 4
		got, facts := planBudgetWorld(t, f, kept, o, size)
		if facts.reuse.read == 0 || facts.collections < 2 && !facts.NeedsEveryone() {
			continue
		}
		n.both++
		if read := len(facts.whole); 2*read > size {
			t.Fatalf("seed %d: %d people read whole by ID (%d held elsewhere) of %d, %d collections: more than one read of everyone costs", seed, read, facts.reuse.read, size, facts.collections)
		}
		if facts.NeedsEveryone() {
			n.everyone++
			continue
		}
		n.planned++
		want, _ := Build(f.cfg, f.st, o)
		if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
			t.Fatalf("seed %d: the plan differs (-whole +read):\n%s", seed, d)
		}
	}
	t.Logf("%+v", n)
	if n.both < worlds/2 || n.everyone < worlds/10 || n.planned < worlds/4 {
		t.Fatalf("worlds reading both the claims and the people held %+v: the test no longer tests one budget", n)
	}
}

// planBudgetWorld is planSharedWorld from a store that says it holds
// size people, with the facts of the first plan (before Recount).
func planBudgetWorld(t *testing.T, f *fixture, kept map[string]int, o Options, size int) (*Plan, *EnrichFacts) {
	t.Helper()
	st, facts := readFromStoreIn(t, f, kept, o, sizedStore{enrichMemStore{memStore{f.st}}, size})
	got := buildFromStore(t, f, st, o, facts)
	if again := facts.Recount(); again != nil {
		got = buildFromStore(t, f, st, o, again)
	}
	return got, facts
}

// heldShared gives f another workspace holding an enrichment of four in
// five of its people, made at another company: none may be copied, so
// that each walk reads whole the people held it meets (heldMet).
func heldShared(rng *rand.Rand, f *fixture, o *Options) {
	ew := &elsewhere{held: map[string]state.Reusable{}}
	for _, id := range sortedPeople(f.st) {
		keys := state.LookupKeys(f.st.People[id])
		if len(keys) == 0 || rng.IntN(5) == 0 {
			continue
		}
		ew.held[keys[0]] = heldAt("dach", t0.Add(-day), "r-"+id+"@x.example", "Elsewhere Ltd", "elsewhere.example")
	}
	o.Reuse = ew.lookup
	o.ReuseHeld = func() ([]string, error) { return slices.Collect(maps.Keys(ew.held)), nil }
}

// TestAFailedRunReadsNoPersonPastThePlannedCalls: the world of
// TestAFailedRunReadsAListWithoutALimitInPages (a block without a limit
// over a search that runs and fails, the 300 people of its list held
// before, none enriched), with max_credits 40: the engine pays for 40
// of them at most. Over the partial state the apply reads the list in
// pages that double (readPlacesMet) only until 40 of its claims are met
// (WithPlan): 48 people in two reads, not the 300. It pays for the
// people the whole state's apply does.
func TestAFailedRunReadsNoPersonPastThePlannedCalls(t *testing.T) {
	paid, want, read, gets := payFailedList(t, 40)
	if read != 48 || gets != 2 {
		t.Errorf("the apply read %d people in %d reads, want 48 in 2 (16, 32)", read, gets)
	}
	if !slices.Equal(paid, want) || len(want) != 40 {
		t.Fatalf("over the partial state the apply pays for %v, over the whole state %v, want 40", paid, want)
	}
}

// TestAFailedRunWithNoCallPlannedReadsOnePage: the world of
// TestAFailedRunReadsNoPersonPastThePlannedCalls with max_credits 0: the
// engine pays for none of the 300. Over the partial state the apply
// reads one page of 16 (readPlacesMet stops at the first claim), not the
// list in pages that double, and pays for nobody, as over the whole
// state.
func TestAFailedRunWithNoCallPlannedReadsOnePage(t *testing.T) {
	paid, want, read, gets := payFailedList(t, 0)
	if read != 16 || gets != 1 {
		t.Errorf("the apply read %d people in %d reads, want 16 in 1", read, gets)
	}
	if len(paid) != 0 || len(want) != 0 {
		t.Fatalf("over the partial state the apply pays for %v, over the whole state %v, want none", paid, want)
	}
}

// payFailedList is what an apply of failedListWorld(300) under
// maxCredits pays for over its partial state and over the whole state,
// and the people and reads the first read past the plan.
func payFailedList(t *testing.T, maxCredits int) (paid, want []string, read, gets int) {
	t.Helper()
	f, e := failedListWorld(300)
	f.cfg.API.MaxCredits = maxCredits
	st, p, facts := applyFailedList(t, f, e, &gets, &read)
	paid = paidFor(t, st, e, NewCandidates(f.cfg, nil).WithFacts(facts).WithPlan(p), maxCredits)
	return paid, paidFor(t, f.st, e, NewCandidates(f.cfg, nil), maxCredits), read, gets
}

// TestAFailedRunReadsTheUnreadBeforeTheLastPaidClaim: a block without a
// limit over three searches, the middle one run and failed, each listing
// one person to enrich (and ten enriched a day ago), with max_credits 2:
// the engine pays for two. The plan read the people to enrich of the
// other two (1.p, 3.p), not 2.p. Over the partial state the apply reads
// 2.p, met before the second claim (readPlacesMet stops at the claim that
// decides the calls, not before), and pays for 1.p and 2.p, as over the
// whole state.
func TestAFailedRunReadsTheUnreadBeforeTheLastPaidClaim(t *testing.T) {
	f, e := failedMiddleWorld([]string{"1.p"}, []string{"2.p"}, []string{"3.p"})
	paid := payFailedMiddle(t, f, e, "2.p", "3.p")
	if want := []string{"1.p", "2.p"}; !slices.Equal(paid, want) {
		t.Fatalf("over the partial state the apply pays for %v, want %v as over the whole state", paid, want)
	}
}

// TestAFailedRunCountsAPersonListedTwiceAsOneCall: the world of
// TestAFailedRunReadsTheUnreadBeforeTheLastPaidClaim with x listed by
// search.a and first in the failed list of search.run, before u, and y
// in search.c. x is one planned call, not two (placesUnread): the apply
// pays for x.p and u.p, as over the whole state, not x.p and y.p.
func TestAFailedRunCountsAPersonListedTwiceAsOneCall(t *testing.T) {
	f, e := failedMiddleWorld([]string{"x.p"}, []string{"x.p", "u.p"}, []string{"y.p"})
	paid := payFailedMiddle(t, f, e, "", "x.p")
	if want := []string{"x.p", "u.p"}; !slices.Equal(paid, want) {
		t.Fatalf("over the partial state the apply pays for %v, want %v as over the whole state", paid, want)
	}
}

// failedMiddleWorld is a block without a limit over three searches, a,
// run and c, the middle one run and failed, listing the people to enrich
// given beside ten of their own enriched a day ago, with max_credits 2.
func failedMiddleWorld(lists ...[]string) (*fixture, *config.Enrich) {
	f := newFixture()
	var from, fresh []string
	for i, name := range []string{"a", "run", "c"} {
		addr := "search." + name
		mod := refresh(30 * day)
		if name == "run" {
			mod = refresh(day)
		}
		f.search(addr, kw(name), mod)
		ids := slices.Clone(lists[i])
		for k := range 10 {
			ids = append(ids, fmt.Sprintf("%s%d.p", name, k))
			fresh = append(fresh, ids[len(ids)-1])
		}
		f.ran(addr, t0.Add(-5*day), ids...)
		from = append(from, addr)
	}
	e := f.enrich("e", from, 0, 30*day)
	for _, id := range fresh {
		f.enriched(id, e.Address, t0.Add(-day))
	}
	f.cfg.API.MaxCredits = 2
	return f, e
}

// payFailedMiddle plans f in part, running search.run, with held read
// and unread (when named) not, and returns what the apply over the
// partial state pays for in e.
func payFailedMiddle(t *testing.T, f *fixture, e *config.Enrich, unread, held string) []string {
	t.Helper()
	o := Options{Now: t0, Offline: true, Targets: []string{e.Address}}
	st, p, facts := applyPartial(t, 0, f, o)
	if st == nil || !facts.runs["search.run"] || unread != "" && st.People[unread] != nil || st.People[held] == nil {
		t.Fatalf("the plan read in part (%v) and ran search.run, %s and not %s: the test no longer tests readPlacesMet", st != nil, held, unread)
	}
	return paidFor(t, st, e, NewCandidates(f.cfg, nil).WithFacts(facts).WithPlan(p), 2)
}

// paidFor is what an apply over st whose runs failed pays for in block e
// as the first block of the run, at most budget (failedRunPays).
func paidFor(t *testing.T, st *state.State, e *config.Enrich, c *Candidates, budget int) []string {
	t.Helper()
	_, paid, err := failedRunPays(t, st, e, c, Claims{}, budget)
	if err != nil {
		t.Fatal(err)
	}
	return paid
}
