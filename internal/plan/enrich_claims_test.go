package plan

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// TestSharedBlocksClaimOnInPart plans 50 random worlds of two to four
// enrich blocks with limits over the same searches (sharedWorld): the
// blocks share most of their people, and refresh each other's stale
// enrichments, giving places back, so that their claims pass their walks
// (claimsRead). maxPlacesRead is a tenth of the people, as 100,000 is of
// the bench's 1,000,000. Until the fifteenth round the plan needed
// everyone once a walk's extra people passed it, or after three
// collections, or the census of every block, which reads every person
// to enrich; now the walks read on, and the plan needs everyone only
// when they read most of the state. Each plan is the whole state's, byte
// for byte, from the walks, and reads whole fewer than half of the
// people.
func TestSharedBlocksClaimOnInPart(t *testing.T) {
	defer keepReadKnobs()()
	const seeds = 50
	past := 0 // worlds whose walks read past maxPlacesRead extra people
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xc1a1))
		f, kept, o := sharedWorld(rng)
		maxPlacesRead = len(f.st.People) / 10
		got, facts, store := planSharedWorld(t, seed, f, kept, o)
		if facts.NeedsEveryone() || len(facts.censusOf) > 0 {
			t.Fatalf("seed %d: the plan of %d blocks needs everyone or the census (%d people read whole, %d collections)", seed, len(f.cfg.Enriches), store.read, facts.collections)
		}
		if slices.ContainsFunc(slices.Collect(maps.Values(facts.extra)), func(n int) bool { return n > maxPlacesRead }) {
			past++
		}
		if people := len(f.st.People); 2*store.read >= people {
			t.Fatalf("seed %d: %d people read whole of %d", seed, store.read, people)
		}
		want, _ := Build(f.cfg, f.st, o)
		if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
			t.Fatalf("seed %d: the plan differs (-whole +read):\n%s", seed, d)
		}
	}
	t.Logf("%d of %d worlds read past maxPlacesRead extra people", past, seeds)
	if past < seeds/2 {
		t.Fatalf("%d worlds read past maxPlacesRead extra people: the test no longer tests claims read on", past)
	}
}

// TestManyBlocksReadEachPersonWholeOnce: in the shared worlds of
// TestSharedBlocksClaimOnInPart, the blocks' walks read on over several
// collections, and a person is met by several blocks. Each person is
// read whole once for all of them (readWhole keeps EnrichFacts.whole):
// never again by another block, nor by the next collection.
func TestManyBlocksReadEachPersonWholeOnce(t *testing.T) {
	defer keepReadKnobs()()
	collected := 0 // worlds collected more than once
	for seed := range 20 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xc1a1))
		f, kept, o := sharedWorld(rng)
		maxPlacesRead = len(f.st.People) / 10
		store := idReads{packingStore{enrichMemStore{memStore{f.st}}}, map[string]int{}}
		st, facts := readFromStoreIn(t, f, kept, o, store)
		clear(store.got)
		buildFromStore(t, f, st, o, facts)
		for id, n := range store.got {
			if n > 1 {
				t.Fatalf("seed %d: %s read whole %d times by %d blocks in %d collections", seed, id, n, len(f.cfg.Enriches), facts.collections)
			}
		}
		collected += btoi(facts.collections > 1 && len(store.got) > 0)
	}
	t.Logf("%d of 20 worlds collected more than once", collected)
	if collected < 10 {
		t.Fatalf("%d worlds collected more than once: the test no longer tests readWhole's people", collected)
	}
}

// planSharedWorld plans f with o over what EnrichReadsOf names, from a
// store that counts the people read whole (the lead lists of kept read
// first), as run.Plan does: built again from the census when Recount
// says so.
func planSharedWorld(t *testing.T, seed int, f *fixture, kept map[string]int, o Options) (*Plan, *EnrichFacts, *countingStore) {
	t.Helper()
	st, facts, store := readFromStore(t, f, kept, o)
	got := buildFromStore(t, f, st, o, facts)
	if again := facts.Recount(); again != nil {
		facts = again
		got = buildFromStore(t, f, st, o, facts)
	}
	return got, facts, store
}

// buildFromStore builds the plan of f over st, read in part, with facts.
func buildFromStore(t *testing.T, f *fixture, st *state.State, o Options, facts *EnrichFacts) *Plan {
	t.Helper()
	o.Enrich = facts
	got, _ := Build(f.cfg, st, o)
	if err := facts.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// sharedWorld is a world of 2,000 to 4,000 people, three to five searches
// keeping most of them in random orders, and two to four enrich blocks
// with limits over every search, each a few places short of what it uses
// (or at it), with a refresh of 30 days. Most people hold an enrichment
// by one of the blocks, of an age from a day to 400 days: each block
// finds the others' old ones stale. kept are the lead lists' lengths.
func sharedWorld(rng *rand.Rand) (*fixture, map[string]int, Options) {
	f := newFixture()
	f.cfg.API.MaxCredits = 1 << 30
	people := 2000 + rng.IntN(2000)
	kept := map[string]int{}
	var refs []string
	for k := range 3 + rng.IntN(3) {
		s := f.search(fmt.Sprintf(`search.a["%d"]`, k), kw("a", "city", fmt.Sprint(k)))
		var ids []string
		for _, i := range rng.Perm(people) {
			if rng.IntN(4) > 0 {
				ids = append(ids, fmt.Sprintf("%05d.p", i))
			}
		}
		f.ranRequest(s.Address, t0.Add(-day), s.Request, 0, ids...)
		refs, kept[s.Address] = append(refs, s.Address), len(ids)
	}
	var names []string
	for k := range 2 + rng.IntN(3) {
		e := f.enrich(fmt.Sprintf("e%d", k), refs, 1, []time.Duration{5 * day, 30 * day, 90 * day, 400 * day}[rng.IntN(4)])
		names = append(names, e.Address)
	}
	ages := []time.Duration{day, 10 * day, 40 * day, 100 * day, 500 * day}
	plain := 2 + rng.IntN(20)
	for _, id := range sortedPeople(f.st) {
		if rng.IntN(plain) > 0 {
			f.enriched(id, names[rng.IntN(len(names))], t0.Add(-ages[rng.IntN(len(ages))]))
		}
	}
	v := newEnv(f.cfg, f.st, t0)
	for _, e := range f.cfg.Enriches {
		e.Limit = v.used(e) + rng.IntN(6)
	}
	return f, kept, Options{Now: t0, Offline: true, FileExists: func(string) bool { return true }}
}

// storeSize, when not negative, is how many people memStore says it
// holds. setReadKnobs makes it 0 in a third of the worlds: several blocks
// whose claims pass their walks then need everyone at once, and take the
// census of every block (recountMany), as past maxPlacesRead extra people
// until the fifteenth round.
var storeSize = -1

// CountPeople counts st's people, as a store counts them in one question
// (state.PeopleCounter), or says storeSize.
func (m memStore) CountPeople() (int, error) {
	if storeSize >= 0 {
		return storeSize, nil
	}
	return len(m.st.People), nil
}

// TestClaimsReadOnToHalfTheState: in shared worlds whose claims pass the
// walks (sharedWorld), the plan reads on only while the people it read
// whole, and those the wider walks may add, are at most half of the
// state's people, and needs everyone past that (readsMost). R people
// read whole by the first collection of the blocks are most of a state
// of 2R-1 people: the plan needs everyone then, and collects the blocks
// again for a state of 2R. Over states of 2R people and more, a plan
// that collected the blocks again read whole at most half of them; over
// a state far larger, it reads on.
func TestClaimsReadOnToHalfTheState(t *testing.T) {
	tried := 0
	for seed := 0; seed < 400 && tried < 20; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xc1a1))
		f, kept, o := sharedWorld(rng)
		first := claimsOfSize(t, f, kept, o, 0)
		if first.collections > 1 || !first.NeedsEveryone() {
			continue // decided by the first collection
		}
		tried++
		read := len(first.whole)
		if most := claimsOfSize(t, f, kept, o, 2*read-1); !most.NeedsEveryone() || most.collections != 1 {
			t.Fatalf("seed %d: %d people read of %d: needs everyone %v after %d collections, want after 1", seed, read, 2*read-1, most.NeedsEveryone(), most.collections)
		}
		if half := claimsOfSize(t, f, kept, o, 2*read); half.collections < 2 {
			t.Fatalf("seed %d: %d people read of %d: %d collections, want more", seed, read, 2*read, half.collections)
		}
		for _, size := range []int{2 * read, 3 * read, 4 * read, 8 * read} {
			if got := claimsOfSize(t, f, kept, o, size); got.collections > 1 && 2*len(got.whole) > size {
				t.Fatalf("seed %d: %d people read whole of %d after %d collections, want at most half", seed, len(got.whole), size, got.collections)
			}
		}
		if far := claimsOfSize(t, f, kept, o, 1<<30); far.collections < 2 {
			t.Fatalf("seed %d: %d collections of a state of %d people, want more", seed, far.collections, 1<<30)
		}
	}
	if tried < 20 {
		t.Fatalf("%d worlds whose first collection read most of the state: the test no longer tests it", tried)
	}
}

// claimsOfSize builds the plan of f over what EnrichReadsOf names, from a
// store that says it holds size people, and returns its facts.
func claimsOfSize(t *testing.T, f *fixture, kept map[string]int, o Options, size int) *EnrichFacts {
	t.Helper()
	st, facts := readFromStoreIn(t, f, kept, o, sizedStore{enrichMemStore{memStore{f.st}}, size})
	buildFromStore(t, f, st, o, facts)
	return facts
}

// sizedStore says it holds size people.
type sizedStore struct {
	enrichMemStore
	size int
}

func (s sizedStore) CountPeople() (int, error) { return s.size, nil }

// uncountedStore cannot count its people.
type uncountedStore struct{ enrichMemStore }

var errUncounted = errors.New("the people cannot be counted")

func (uncountedStore) CountPeople() (int, error) { return 0, errUncounted }

// TestAStoreThatCannotCountFailsTheClaims: in shared worlds whose claims
// pass the walks (sharedWorld), a store that cannot count its people
// fails the plan with its error (Err): never a silent read of everyone.
func TestAStoreThatCannotCountFailsTheClaims(t *testing.T) {
	tried := 0
	for seed := 0; seed < 400 && tried < 10; seed++ {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xc1a1))
		f, kept, o := sharedWorld(rng)
		if first := claimsOfSize(t, f, kept, o, 0); first.collections > 1 || !first.NeedsEveryone() {
			continue // decided by the first collection: nothing counted
		}
		tried++
		st, facts := readFromStoreIn(t, f, kept, o, uncountedStore{enrichMemStore{memStore{f.st}}})
		o.Enrich = facts
		_, _ = Build(f.cfg, st, o)
		if err := facts.Err(); !errors.Is(err, errUncounted) {
			t.Fatalf("seed %d: the plan's error is %v, want %v", seed, err, errUncounted)
		}
	}
	if tried < 10 {
		t.Fatalf("%d worlds whose claims pass the walks: the test no longer tests the count", tried)
	}
}
