package plan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
)

// TestCollectAgrees: collect, which looks the people up on several cores
// and counts a person only one source can meet without the set of people
// met, counts exactly what collectEach counts (the plain rule: each
// person where the sources first meet them), on random worlds, also
// when the state does not bear the shortcut out: a person's found_by
// missing a source that meets them, an ID twice in one source, a person
// under two IDs, people the plan removes first, re-keyed IDs.
func TestCollectAgrees(t *testing.T) {
	useTestMatch(t)
	defer func(n int) { minLookUpParallel = n }(minLookUpParallel)
	minLookUpParallel = 1 // several cores even for a few people
	shortcuts := 0
	for seed := range 400 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xc011))
		f, _ := randomWorld(rng)
		spoil(rng, f.st)
		v := newEnv(f.cfg, f.st, t0)
		if rng.IntN(3) == 0 {
			v.gone = map[*state.Person]bool{}
			for _, id := range sortedPeople(f.st) {
				if rng.IntN(5) == 0 {
					v.gone[f.st.People[id]] = true
				}
			}
		}
		for _, e := range f.cfg.Enriches {
			for _, where := range []bool{false, true} {
				skip := func(addr string) bool { return len(addr)%3 == seed%3 }
				got, gotErr := v.collect(e, skip, where)
				var sources []source
				n := 0
				for _, addr := range f.cfg.Resolve(e.From) {
					if !skip(addr) {
						ids := v.sourcePeople(addr)
						sources = append(sources, source{addr, ids})
						n += ids.Len()
					}
				}
				if v.lookUp(e, sources, n) != nil {
					shortcuts++
				}
				want, wantErr := v.collectEach(e, sources, n, where)
				if wantErr == nil && len(e.RefreshOn) > 0 {
					wantErr = v.collectFormer(&want, e, sources, nil, where)
				}
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Fatalf("seed %d, %s: error %v, want %v", seed, e.Address, gotErr, wantErr)
				}
				if !slices.Equal(v.memberIDs(got.todo), v.memberIDs(want.todo)) ||
					!slices.Equal(personIDs(got.failing), personIDs(want.failing)) ||
					got.members != want.members || got.enriched != want.enriched {
					t.Fatalf("seed %d, %s, where %v:\n got todo %v failing %v (%d members, %d enriched)\nwant todo %v failing %v (%d members, %d enriched)",
						seed, e.Address, where, v.memberIDs(got.todo), personIDs(got.failing), got.members, got.enriched,
						v.memberIDs(want.todo), personIDs(want.failing), want.members, want.enriched)
				}
			}
		}
	}
	if shortcuts == 0 {
		t.Error("no world took the shortcut")
	}
}

// spoil breaks, at random, what collect's shortcut relies on: found_by
// lists that name every source that meets a person, IDs that are keys of
// people, one ID per person in a source.
func spoil(rng *rand.Rand, st *state.State) {
	ids := sortedPeople(st)
	if len(ids) == 0 {
		return
	}
	for _, addr := range sortedSearches(st) {
		rec := st.Searches[addr]
		switch rng.IntN(8) {
		case 0: // a person twice
			if len(rec.LeadIDs) > 0 {
				rec.LeadIDs = append(rec.LeadIDs, rec.LeadIDs[rng.IntN(len(rec.LeadIDs))])
			}
		case 1: // someone whose found_by does not name this search
			rec.LeadIDs = append(rec.LeadIDs, ids[rng.IntN(len(ids))])
		case 2: // a person under a second ID
			if len(rec.LeadIDs) > 0 {
				p := st.People[rec.LeadIDs[0]]
				st.People["alias-"+p.ID] = p
				rec.LeadIDs = append(rec.LeadIDs, "alias-"+p.ID)
			}
		case 3: // an ID that is no key: a page name state finds by its index
			if p := st.People[ids[rng.IntN(len(ids))]]; p.Lead.PageName != "" {
				rec.LeadIDs = append(rec.LeadIDs, state.PagePrefix+p.Lead.PageName)
			}
		}
	}
}

func sortedSearches(st *state.State) []string {
	var out []string
	for addr := range st.Searches {
		out = append(out, addr)
	}
	slices.Sort(out)
	return out
}

// TestOwnedInTheBackground: the people each block owns, found in the
// background (prefetchOwned), are those found in place, and settle waits
// for them: Build returns only once nothing reads the state any more.
func TestOwnedInTheBackground(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	f, _ := randomWorld(rng)
	want := newEnv(f.cfg, f.st, t0).findOwned(false)
	v := newEnv(f.cfg, f.st, t0)
	v.prefetchOwned()
	v.settle()
	got := v.owned // read only after settle: the race detector checks it
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("owned by %d blocks, want %d", len(got), len(want))
	}
	for by, ps := range want {
		if got[by].n != ps.n {
			t.Errorf("%s owns %d people, want %d", by, got[by].n, ps.n)
		}
	}
}

// TestOwnedPeople: a block's people, added one by one across chunks, come
// back all and in order.
func TestOwnedPeople(t *testing.T) {
	var o ownedPeople
	people := make([]state.Person, 2*ownedChunk+3)
	for i := range people {
		o.add(ownedPerson{p: &people[i]})
	}
	i := 0
	for op := range o.all {
		if op.p != &people[i] {
			t.Fatalf("person %d out of order", i)
		}
		i++
	}
	if i != len(people) || o.n != len(people) {
		t.Errorf("%d people yielded, %d counted, want %d", i, o.n, len(people))
	}
}
