package plan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// TestReusesOverThePartialStateOfAnApply: in the random worlds of
// TestEnrichReadsMakeTheSamePlan, an apply of a plan
// EnrichReadsOf answers runs on a partial state (applyPartial, as
// run.partialEnrich reads it). Every planned enrich block's copies
// (Reuses, with that state's counts, partialFacts, and the company
// domains of the plan's facts, WithFacts) are those over the whole
// state, in the same order, from the same workspaces.
func TestReusesOverThePartialStateOfAnApply(t *testing.T) {
	const worlds = 3200
	defer keepReadKnobs()()
	compared, copied, limited := 0, 0, 0
	// 3871, 31327: a person held elsewhere past the first read
	// (firstHeld), only in a search that runs: its run failing, the apply
	// meets them in the lead list held before (readHeldMet).
	for _, seed := range seedsAnd(worlds, 3871, 31327) {
		f, o, others := othersWorld(seed)
		if !others {
			continue
		}
		n, c, l, _ := sameReuses(t, seed, f, o)
		compared, copied, limited = compared+n, copied+c, limited+l
	}
	t.Logf("%d planned blocks compared, %d copying (%d under a limit)", compared, copied, limited)
	if compared < 400 || copied < 200 || limited < 50 {
		t.Errorf("only %d blocks compared and %d copying: the worlds no longer test Reuses over a partial state", compared, copied)
	}
}

// othersWorld is the random world of seed of TestEnrichReadsMakeTheSamePlan,
// its knobs set, and whether it has other workspaces (reuseWorld).
func othersWorld(seed int) (f *fixture, o Options, others bool) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0xe4c4))
	setReadKnobs(rng, seed)
	f, o = enrichWorld(rng)
	setReuseKnobs(seed)
	return f, o, reuseWorld(rng, f, &o)
}

// sameReuses compares, in the world of seed, every planned enrich block's
// copies over the partial state of an apply (applyPartial) with those over
// the whole state: the blocks compared, those copying, and of them those
// under a limit, and those copying, before their last copy, someone the
// apply had not read (unreadBefore).
func sameReuses(t *testing.T, seed int, f *fixture, o Options) (compared, copied, limited, unreadBefore int) {
	t.Helper()
	st, p, facts := applyPartial(t, seed, f, o)
	if st == nil {
		return 0, 0, 0, 0
	}
	// As the engine makes them (its Options.Enrich: the plan's facts).
	got, want := NewCandidates(f.cfg, o.Reuse).WithFacts(facts), NewCandidates(f.cfg, o.Reuse)
	for _, e := range f.cfg.Enriches {
		if c := p.Change(e.Address); c == nil || c.Action == None {
			continue
		}
		ws, werr := want.Reuses(f.st, e, t0)
		unreadBefore += btoi(unreadBeforeLast(st, ws))
		rs, err := got.Reuses(st, e, t0)
		if werr != nil || err != nil {
			if (werr == nil) != (err == nil) {
				t.Fatalf("seed %d %s: Reuses over the partial state: %v, over the whole state: %v", seed, e.Address, err, werr)
			}
			continue
		}
		compared++
		if len(rs) != len(ws) {
			t.Fatalf("seed %d %s: %d copies over the partial state (%d people read of %d), %d over the whole state", seed, e.Address, len(rs), len(st.People), len(f.st.People), len(ws))
		}
		for i := range ws {
			if rs[i].PersonID != ws[i].PersonID || rs[i].From.Workspace != ws[i].From.Workspace || !rs[i].From.Enrichment.EnrichedAt.Equal(ws[i].From.Enrichment.EnrichedAt) {
				t.Fatalf("seed %d %s: copy %d is %s from %s over the partial state, %s from %s over the whole", seed, e.Address, i, rs[i].PersonID, rs[i].From.Workspace, ws[i].PersonID, ws[i].From.Workspace)
			}
		}
		if len(rs) > 0 {
			copied++
			limited += btoi(e.Limit > 0 && e.Limit < 1000)
		}
	}
	return compared, copied, limited, unreadBefore
}

// unreadBeforeLast reports whether a copy of ws (in order) before the
// last one is of a person st has not read.
func unreadBeforeLast(st *state.State, ws []Reuse) bool {
	for _, r := range ws[:max(len(ws)-1, 0)] {
		if st.People[r.PersonID] == nil {
			return true
		}
	}
	return false
}

// TestReusesAtTheLimitReadThePeopleHeldBeforeTheLastCopy: in the random
// worlds of TestReusesOverThePartialStateOfAnApply, the first enrich
// block is at its limit and its sources run (heldBeforeWorld). The plan
// reads none of the people held elsewhere for the copies, and its walk
// skips the lead lists that run. The apply, its runs failed, walks those
// lists: its copies take every place, and those held met before its last
// copy, not read, may take its place (heldBefore reads them). Its copies
// are the whole state's. The walk reads them in one chunk (walkChunk at
// its default), and only a few people held are read up front
// (maxReuseRead 2).
func TestReusesAtTheLimitReadThePeopleHeldBeforeTheLastCopy(t *testing.T) {
	const worlds = 1600
	defer keepReadKnobs()()
	compared, before := 0, 0
	for seed := range worlds {
		f, o, others := othersWorld(seed)
		if !others {
			continue
		}
		heldBeforeWorld(f)
		maxReuseRead, walkChunk = 2, 4096
		n, _, _, b := sameReuses(t, seed, f, o)
		compared, before = compared+n, before+b
	}
	t.Logf("%d planned blocks compared, %d copying before their last copy someone the apply had not read", compared, before)
	if compared < 400 || before < 30 {
		t.Errorf("%d blocks compared, %d copying someone not read before their last copy: the worlds no longer test heldBefore", compared, before)
	}
}

// heldBeforeWorld puts the first enrich block of f at its limit (the
// enrichments it holds, 1 when none) and makes the searches it reads run.
func heldBeforeWorld(f *fixture) {
	e := f.cfg.Enriches[0]
	from := f.cfg.Resolve(e.From)
	for _, s := range f.cfg.Searches {
		if slices.Contains(from, s.Address) {
			s.Refresh = time.Hour
		}
	}
	held := f.st.ErasedEnrichments[e.Address]
	for _, p := range f.st.People {
		if en := p.Enrichment; en != nil && (en.By == e.Address || en.CopiedBy == e.Address) {
			held++
		}
	}
	for _, u := range f.st.UnknownEnrichments {
		held += btoi(u.By == e.Address)
	}
	e.Limit = max(held, 1)
}

// applyPartial is the partial state an apply of f's plan runs on when
// EnrichReadsOf answers (run.partialEnrich, writableReading): the records,
// the people the reads name, those read in sketch, and, once the plan is
// made, those its walk found; with the plan. nil when the plan needs
// everyone (the apply loads the state whole). The facts are the plan's
// (after Recount), which the engine is given.
func applyPartial(t *testing.T, seed int, f *fixture, o Options) (*state.State, *Plan, *EnrichFacts) {
	t.Helper()
	return applyPartialIn(t, seed, f, o, packingStore{enrichMemStore{memStore{f.st}}})
}

// applyPartialIn is applyPartial from store, which holds f's people and
// reads lead lists packed.
func applyPartialIn(t *testing.T, seed int, f *fixture, o Options, store state.PeopleStore) (*state.State, *Plan, *EnrichFacts) {
	t.Helper()
	st, p, facts := planPartialIn(t, seed, f, o, store)
	if st != nil {
		st.HoldRead(facts.WalkedPeople())
	}
	return st, p, facts
}

// planPartialIn is applyPartialIn up to the plan: the people the plan
// walked are not held yet.
func planPartialIn(t *testing.T, seed int, f *fixture, o Options, store state.PeopleStore) (*state.State, *Plan, *EnrichFacts) {
	t.Helper()
	st, facts := readPartialIn(t, seed, f, o, store)
	if st == nil {
		return nil, nil, nil
	}
	po := o
	po.Enrich = facts
	p, _ := Build(f.cfg, st, po)
	if again := facts.Recount(); again != nil {
		facts, po.Enrich = again, again
		p, _ = Build(f.cfg, st, po)
	}
	if facts.Err() != nil || facts.NeedsEveryone() {
		return nil, nil, nil
	}
	return st, p, facts
}

// readPartial is the partial state an apply of f reads before it plans
// (run.partialEnrich, writableReading: its lead lists packed), with the
// store's facts: nil when EnrichReadsOf does not answer.
func readPartial(t *testing.T, seed int, f *fixture, o Options) (*state.State, *EnrichFacts) {
	t.Helper()
	return readPartialIn(t, seed, f, o, packingStore{enrichMemStore{memStore{f.st}}})
}

// readPartialIn is readPartial from store, which holds f's people and
// reads lead lists packed.
func readPartialIn(t *testing.T, seed int, f *fixture, o Options, store state.PeopleStore) (*state.State, *EnrichFacts) {
	t.Helper()
	st, facts := readPartialSketched(t, seed, f, o, store)
	if st == nil {
		return nil, nil
	}
	if err := st.ReadPeople(facts.SketchedIDs()); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return st, facts
}

// readPartialSketched is readPartialIn but for the people the plan reads
// in sketch, which it does not read (nil, nil for no partial state).
func readPartialSketched(t *testing.T, seed int, f *fixture, o Options, store state.PeopleStore) (*state.State, *EnrichFacts) {
	t.Helper()
	b := enrichBaseIn(f.st, store)
	r, facts, ok, err := EnrichReadsOf(f.cfg, b.Records, o, b)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	if !ok {
		return nil, nil
	}
	st, err := b.Writable()
	if err == nil {
		err = st.ReadLeadsPacked(append(slices.Clone(r.Searches), r.Sources...))
	}
	var ids []string
	if err == nil {
		ids, err = r.EnrichedIDs(b, st)
	}
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	ids = append(ids, r.Persons...)
	for _, page := range r.Pages {
		ids = append(ids, state.PagePrefix+page)
	}
	for _, addr := range r.Sources {
		if sr := st.Searches[addr]; sr != nil {
			ids = sr.Leads().AppendTo(ids)
		}
	}
	if err := st.ReadRefs(ids); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	return st, facts
}

// packingStore is enrichMemStore reading lead lists packed
// (state.LeadPacker), as the SQL stores do.
type packingStore struct{ enrichMemStore }

func (m packingStore) PackedLeadLists(addrs []string) (map[string]state.IDList, error) {
	out := map[string]state.IDList{}
	for _, addr := range addrs {
		if sr := m.st.Searches[addr]; sr != nil {
			out[addr] = state.PackIDs(sr.LeadIDs)
		}
	}
	return out, nil
}

// getCounter is packingStore counting the reads of people (Get).
type getCounter struct {
	packingStore
	gets, read *int
}

func (m getCounter) Get(ids []string) ([]*state.Person, error) {
	*m.gets++
	*m.read += len(ids)
	return m.packingStore.Get(ids)
}

// TestAnApplyReadsThePeopleHeldThePlanMetUpFront: in the random worlds
// of TestReuseFirstHeldMakesTheSamePlan, the plan of an apply over a
// partial state reads whole the people held elsewhere its walk meets
// (heldMet, reuseFacts.met). The apply holds them up front with the
// others the plan walked, as the plan read them (WalkedPeople,
// State.HoldRead): neither it nor its copies (Reuses) read any of them
// again. Left out, Reuses reads them a page at a time (readHeldMet), each
// page costing another collect of the block.
func TestAnApplyReadsThePeopleHeldThePlanMetUpFront(t *testing.T) {
	defer keepReadKnobs()()
	worlds, blocks := 0, 0
	for seed := range 3200 {
		f, o, others := firstHeldWorld(seed)
		if !others {
			continue
		}
		store := idReads{packingStore{enrichMemStore{memStore{f.st}}}, map[string]int{}}
		st, p, facts := planPartialIn(t, seed, f, o, store)
		if st == nil || len(facts.reuse.met) == 0 {
			continue
		}
		worlds++
		clear(store.got)
		st.HoldRead(facts.WalkedPeople())
		if len(store.got) > 0 {
			t.Fatalf("seed %d: the apply read again %d people the plan read whole: it holds the plan's records (HoldRead)", seed, len(store.got))
		}
		c := NewCandidates(f.cfg, o.Reuse).WithFacts(facts)
		for _, e := range f.cfg.Enriches {
			if ch := p.Change(e.Address); ch == nil || ch.Action == None {
				continue
			}
			blocks++
			clear(store.got)
			if _, err := c.Reuses(st, e, t0); err != nil {
				t.Fatalf("seed %d %s: %v", seed, e.Address, err)
			}
			for id := range facts.reuse.met {
				if store.got[id] > 0 {
					t.Fatalf("seed %d %s: the copies read %s again, whom the plan met (%d met)", seed, e.Address, id, len(facts.reuse.met))
				}
			}
		}
	}
	t.Logf("%d worlds whose plan met people held, %d blocks copied over them", worlds, blocks)
	if worlds < 30 || blocks < 30 {
		t.Fatalf("%d worlds whose plan met people held (%d blocks): the test no longer tests WalkedIDs", worlds, blocks)
	}
}

// idReads is packingStore counting the reads of each person (Get) by ID.
type idReads struct {
	packingStore
	got map[string]int
}

func (m idReads) Get(ids []string) ([]*state.Person, error) {
	for _, id := range ids {
		m.got[id]++
	}
	return m.packingStore.Get(ids)
}

// TestReusesReadThePeopleHeldBeforeTheLastCopyOnce: an apply over a
// partial state whose copies took every place reads the people held
// elsewhere met before its last copy in one walk (readHeldMet,
// heldBefore), not 16 a round, each round walking the lead lists again.
// A block of limit 1 meets 3,000 people held elsewhere, enriched at a
// former employer (no copy), in 12 searches, then one it copies, the only
// one read, then five more held, who cannot take its place: not read.
// LEADSYNC_HELD_BEFORE sets how many are met before (a measure: -v).
func TestReusesReadThePeopleHeldBeforeTheLastCopyOnce(t *testing.T) {
	unread := fromEnv("LEADSYNC_HELD_BEFORE", 3000)
	f, e, from, ew, held := formerHeldWorld(unread)
	gets, read := 0, 0
	b := enrichBaseIn(f.st, getCounter{packingStore{enrichMemStore{memStore{f.st}}}, &gets, &read})
	st := formerHeldState(t, b, from, "last.p")
	gets, read = 0, 0
	c := NewCandidates(f.cfg, ew.lookup)
	c.held, c.heldAsked = held, map[string]bool{}
	start := time.Now()
	rs, err := c.Reuses(st, e, t0)
	if err != nil || len(rs) != 1 || rs[0].PersonID != "last.p" {
		t.Fatalf("copies over the partial state: %+v, %v; want one of last.p", rs, err)
	}
	t.Logf("%d people held read before the last copy, in %d reads (%v)", read, gets, time.Since(start))
	// A page of the walk is read in pages of the store (readPages).
	if most := unread/walkChunk + unread/state.PeoplePage + 2; read != unread || gets > most {
		t.Fatalf("%d people held read in %d reads: want %d in at most %d", read, gets, unread, most)
	}
}

// TestReusesReadThePeopleHeldMetInGrowingPages: the world of
// TestReusesReadThePeopleHeldBeforeTheLastCopyOnce, its copy not read up
// front. While the block's one place is left, the apply reads the people
// held it meets in pages that double (nextHeldPage): the 3,001 before
// the copy in 8 reads, not the 167 rounds of the block's collect of
// pages of 18, and copies the last one met. The last page may read the
// five people held past the copy.
func TestReusesReadThePeopleHeldMetInGrowingPages(t *testing.T) {
	const unread = 3000
	f, e, from, ew, held := formerHeldWorld(unread)
	gets, read := 0, 0
	b := enrichBaseIn(f.st, getCounter{packingStore{enrichMemStore{memStore{f.st}}}, &gets, &read})
	st := formerHeldState(t, b, from)
	held["last.p"] = true
	gets, read = 0, 0
	c := NewCandidates(f.cfg, ew.lookup)
	c.held, c.heldAsked = held, map[string]bool{}
	rs, err := c.Reuses(st, e, t0)
	if err != nil || len(rs) != 1 || rs[0].PersonID != "last.p" {
		t.Fatalf("copies over the partial state: %+v, %v; want one of last.p", rs, err)
	}
	t.Logf("%d people held read, in %d reads", read, gets)
	if gets > 12 || read < unread+1 || read > unread+6 {
		t.Fatalf("%d people held read in %d reads: want %d to %d in at most 12", read, gets, unread+1, unread+6)
	}
}

// formerHeldWorld is a block of limit 1 whose lead lists, 250 people a
// search, name unread people held elsewhere at a former employer (no
// copy), then last.p, whom another workspace holds an enrichment of
// (a copy), then five more held: the block, its sources, the other
// workspace and the people it holds but last.p.
func formerHeldWorld(unread int) (f *fixture, e *config.Enrich, from []string, ew *elsewhere, held map[string]bool) {
	f = newFixture()
	var people []string
	for i := 0; i <= unread; i += 250 {
		addr := fmt.Sprintf("search.s%d", i)
		ids := make([]string, 0, 250)
		for j := i; j < min(i+250, unread); j++ {
			ids = append(ids, fmt.Sprintf("h%06d.p", j))
		}
		if i+250 > unread { // and five people held past the copy, not read
			ids = append(ids, "last.p", "past1.p", "past2.p", "past3.p", "past4.p", "past5.p")
		}
		f.search(addr, kw(addr))
		f.ran(addr, t0.Add(-time.Hour), ids...)
		from, people = append(from, addr), append(people, ids...)
	}
	e = f.enrich("all", from, 1, 30*day)
	ew = &elsewhere{held: map[string]state.Reusable{}}
	held = map[string]bool{}
	for _, id := range people {
		ew.held["n:"+id] = heldAt("dach", t0.Add(-day), "h@x.example", "Former Inc", "former.example")
		held[id] = true
	}
	ew.held["n:last.p"] = heldIn("dach", t0.Add(-day), "l@x.example", "last.p")
	return f, e, from, ew, held
}

// formerHeldState is the partial state of an apply over b: the lead
// lists of from, and the people of ids.
func formerHeldState(t *testing.T, b *state.Base, from []string, ids ...string) *state.State {
	t.Helper()
	st, err := b.Writable()
	if err == nil {
		err = st.ReadLeadsPacked(from)
	}
	if err == nil {
		err = st.ReadPeople(ids)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st
}
