package plan

import (
	"math/rand/v2"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
)

// TestSeveralBlocksReadThePeopleHeldAsMet: in the random worlds of
// TestManyEnrichBlocksMakeTheSamePlan (two or three blocks, at their
// limits, with places left, a safety cap or none, a where, exclude
// blocks, refresh and refresh_on, enrichments shared between them) with
// other workspaces, maxReuseRead 2 leaves the people held unread
// (reuseFacts.partial): none is read up front. Each block's walk reads
// those it meets before its copies take its places (heldMet), a census
// asks about the candidates it reads (heldCensused, candidatePages).
// Past maxHeldRead (1 in half the worlds), the blocks read on up to half
// the people their sources list (heldReadMost), or need everyone. Every
// plan made so is the whole state's, byte for byte; an apply over the
// people read copies as over the whole state (sameReuses); some plans
// read fewer people than the state holds.
// LEADSYNC_REUSE_WORLDS plans more; seven seeds past them always run.
func TestSeveralBlocksReadThePeopleHeldAsMet(t *testing.T) {
	defer keepManyKnobs()()
	worlds := fromEnv("LEADSYNC_REUSE_WORLDS", 800)
	var n struct{ planned, everyone, met, copied, census, applied, fewer int }
	// Past the worlds, seeds that once failed: 998 (a person held read by
	// another block not asked about for this one: askMet), 1087 and 1473
	// (places another block frees: metUnread), 831 (a where's count of
	// copies: candidatePages.ask), 1557 (people held read by another block
	// after this one passed them: readHeldAsked), 2221 (refresh_on's count
	// of the fresh not read took in a person held read as met: metHeld),
	// 104205 (the people another block read and this one meets not asked
	// about: readHeldAsked's askAbout of met).
	for _, seed := range seedsAnd(worlds, 998, 1087, 1473, 831, 1557, 2221, 104205) {
		f, o, others := heldManyWorld(seed)
		if !others {
			continue
		}
		b := enrichBase(f.st)
		_, facts, ok, _ := EnrichReadsOf(f.cfg, b.Records, o, b)
		if !ok || !facts.many || facts.reuse == nil || !facts.reuse.partial {
			continue
		}
		r := planOfEnrich(t, seed, f, o)
		if !r.compared {
			n.everyone++
			continue
		}
		n.planned++
		n.met += btoi(r.heldRead > 0)
		n.copied += btoi(r.reused)
		n.census += btoi(r.reused && r.census)
		if !r.reused {
			continue
		}
		st, _, _ := applyPartial(t, seed, f, o)
		if st == nil {
			continue
		}
		compared, _, _, _ := sameReuses(t, seed, f, o)
		n.applied += btoi(compared > 0)
		n.fewer += btoi(len(st.People) < len(f.st.People))
	}
	t.Logf("%+v", n)
	if n.planned < 150 || n.met < 40 || n.copied < 50 || n.census < 40 || n.applied < 50 || n.fewer < 40 || n.everyone < 5 {
		t.Fatalf("worlds of several blocks beside people held unread %+v: the test no longer tests heldMet for several blocks", n)
	}
}

// heldManyWorld is the random world of seed of
// TestManyEnrichBlocksMakeTheSamePlan, with other workspaces in about
// half (others), maxReuseRead 2, and maxHeldRead and heldListedPart set
// so that some plans read the people held past maxHeldRead.
func heldManyWorld(seed int) (f *fixture, o Options, others bool) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x3a7e))
	setReadKnobs(rng, seed)
	censusPage = []int{1, 2, 5, state.PeoplePage}[seed/4%4]
	f, o, _ = manyWorld(rng)
	whereWorld(rng, f, &o)
	maxReuseRead, maxReusePrefix, maxReuseKeys = 2, 100_000, 4_000_000
	maxHeldRead = []int{100_000, 1}[seed%2]
	heldListedPart = []int{2, 2, 1 << 30}[seed/2%3]
	return f, o, reuseWorld(rng, f, &o)
}

// TestAWhereAtItsLimitCountedAgainReadsInPart: beside other workspaces
// whose people are left unread, a block with a where at its limit counts
// its people to enrich read whole a page at a time, each page asked about
// (candidatePages.ask): its count holds no copy. Collected again beside
// blocks whose claims pass their walks (enrichClaims), it is not checked
// for copies again (countedLessCopies), which could not tell them without
// reading every person. In these seeds of whereAtLimitWorld its count
// holds people held elsewhere: each plan reads in part, byte for byte
// the whole state's.
func TestAWhereAtItsLimitCountedAgainReadsInPart(t *testing.T) {
	defer keepManyKnobs()()
	for _, seed := range []int{1368, 4428, 12993, 13378, 14097, 14344, 20548, 28165} {
		f, o := whereAtLimitWorld(seed)
		_, _, facts := planPartialIn(t, seed, f, o, packingStore{enrichMemStore{memStore{f.st}}})
		if facts == nil {
			t.Errorf("seed %d: the plan of a where at its limit counted again needs everyone", seed)
			continue
		}
		if r := planOfEnrich(t, seed, f, o); !r.compared {
			t.Fatalf("seed %d: the plan needs everyone", seed)
		}
		w := f.cfg.Enriches[len(f.cfg.Enriches)-1]
		if !heldAmong(f, o, facts.counted[w.Address]) {
			t.Fatalf("seed %d: %s counts none held elsewhere: the world no longer tests countedLessCopies", seed, w.Address)
		}
	}
}

// whereAtLimitWorld is heldManyWorld of seed (with other workspaces, in
// the seeds that use it) whose last block has a where (none failing) and
// is at its limit, without copies, enrichments of an unknown outcome or
// refresh_on: a block that only counts its people (countOnly).
func whereAtLimitWorld(seed int) (*fixture, Options) {
	f, o, _ := heldManyWorld(seed)
	useNumberMatch(false)
	w := f.cfg.Enriches[len(f.cfg.Enriches)-1]
	whereCompany(w)
	for _, e := range f.cfg.Enriches {
		e.RefreshOn = nil
	}
	for id, u := range f.st.UnknownEnrichments {
		if u.By == w.Address {
			delete(f.st.UnknownEnrichments, id)
		}
	}
	for _, p := range f.st.People {
		if p.Enrichment != nil && p.Enrichment.CopiedBy == w.Address {
			p.Enrichment.CopiedBy = ""
		}
	}
	w.Limit = 1 // used counts the people held under a limit
	w.Limit = max(newEnv(f.cfg, f.st, o.Now).used(w), 1)
	return f, o
}

// heldAmong reports whether the other workspaces of o hold one of the
// people of ids.
func heldAmong(f *fixture, o Options, ids *placedIDs) bool {
	for id := range ids.all {
		if p := f.st.People[id]; p != nil {
			if found, err := o.Reuse(state.LookupKeys(p)); err == nil && len(found) > 0 {
				return true
			}
		}
	}
	return false
}
