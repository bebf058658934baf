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
