package plan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// TestEnrichReadsMakeTheSamePlan plans 3,200 random worlds of enrich blocks of
// the kind EnrichReadsOf answers (limits reached and not, stale and fresh
// enrichments, people who left, without a page name, unknown outcomes,
// erased and copied enrichments, several blocks, sources that run) twice:
// over the whole state, and over what a store gives for EnrichReadsOf
// with its counts. Unless Build says it needs everyone, the plans must be
// the same, byte for byte. A block with places left under its limit
// asks the store who takes them (placesWalk), and how many more people
// are to enrich when its bound needs them: a few people at a time in
// some worlds, so that the walk asks again and again, and giving up
// after a few in some. A block whose limit is a safety cap (more places
// left than maxPlacesRead, which some worlds make 2), and one the walk
// cannot decide (every member enriched: nothing to enrich), tell the
// members apart from the census of every enrichment (collectCensus),
// giving up past a few candidates in some worlds. Some worlds have
// exclude blocks of every kind (excludeWorld), no limit, or refresh_on
// with people whose company or title changed (refreshOnWorld).
func TestEnrichReadsMakeTheSamePlan(t *testing.T) {
	const worlds = 3200
	defer keepReadKnobs()()
	nothing := 0        // from the census with nothing to enrich
	var reuse [4]int    // worlds with other workspaces (compared), copying (walked, from the census)
	var past [3]int     // worlds with other workspaces past maxReuseRead (reuseUnread, mayCopy, firstHeld)
	scanned := 0        // worlds compared whose other workspaces list more than maxReuseKeys keys (scanKeyed)
	var listed [3]int   // worlds at the limit whose plan found the people held (findHeld): walked, from the census, needing everyone
	var heldNone [2]int // worlds compared whose other workspaces hold nobody here (elsewhere.apart): found so up front, at the limit (findHeld)
	excluded, unlimited, refreshOn, refreshOnWalked := 0, 0, 0, 0
	moved, movedNames := 0, 0 // compared, with moves; of them renaming what people's records name
	var read, whole [4]int    // by places left: 0 none, 1 some (the walk); 2 the census, 3 the census after the walk
	// 21855: a move, and people held elsewhere met unread (heldMet), whose
	// copies need the store's company domains (reuseReads).
	for _, seed := range seedsAnd(worlds, 21855) {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xe4c4))
		setReadKnobs(rng, seed)
		f, o := enrichWorld(rng)
		setReuseKnobs(seed)
		others := reuseWorld(rng, f, &o)
		mrng := rand.New(rand.NewPCG(uint64(seed), 0x30ed)) // the worlds are otherwise those before
		if mrng.IntN(5) == 0 {
			moveWorld(t, mrng, f)
		}
		b := enrichBase(f.st)
		o, mv := movedOptions(t, seed, f, b, o)
		_, facts, ok, _ := EnrichReadsOf(f.cfg, b.Records, o, b)
		if !ok {
			continue
		}
		r := planOfEnrich(t, seed, f, o)
		past = countPast(past, r, facts)
		scanned += btoi(r.compared && keysPast(o))
		listed = countListed(listed, r)
		if r.compared && r.heldNone {
			heldNone[btoi(r.heldListed)]++
		}
		if r.compared && mv {
			moved++
			movedNames += btoi(o.Moved.names)
		}
		reuse = countReuse(reuse, r, others)
		k := 0
		switch {
		case r.census && r.recounted:
			k = 3
		case r.census:
			k = 2
		case r.walked:
			k = 1
		}
		if r.compared && r.census && r.nothing {
			nothing++
		}
		if r.compared && r.excluded {
			excluded++
		}
		if r.compared && r.unlimited {
			unlimited++
		}
		if r.compared && r.refreshOn {
			refreshOn++
			if !r.census {
				refreshOnWalked++
			}
		}
		if r.compared {
			read[k]++
		} else {
			whole[k]++
		}
	}
	t.Logf("reuse across workspaces: %d worlds with other workspaces planned in part, %d copying (%d walked, %d from the census)", reuse[0], reuse[1], reuse[2], reuse[3])
	if reuse[0] < 600 || reuse[1] < 300 || reuse[2] < 25 || reuse[3] < 250 {
		t.Fatalf("worlds with other workspaces %v: the test no longer tests reuse", reuse)
	}
	t.Logf("reuse past maxReuseRead: %d worlds at the limit read no one for the copies, %d with places read those who may be copied, %d only the first of them", past[0], past[1], past[2])
	if past[0] < 150 || past[1] < 30 || past[2] < 4 {
		t.Fatalf("worlds reusing past maxReuseRead %v: the test no longer tests reading them in part", past)
	}
	t.Logf("people held found past maxReuseKeys by one pass over every person's keys (scanKeyed): %d worlds planned in part", scanned)
	if scanned < 100 {
		t.Fatalf("%d worlds planned in part past maxReuseKeys: the test no longer tests scanKeyed", scanned)
	}
	t.Logf("people held found at the limit (findHeld): %d worlds planned in part walking, %d from the census, %d needing everyone", listed[0], listed[1], listed[2])
	if listed[0] < 5 || listed[1] < 5 {
		t.Fatalf("worlds finding the people held at the limit %v: the test no longer tests findHeld", listed)
	}
	t.Logf("beside other workspaces holding nobody here: %d worlds planned in part finding so up front, %d at the limit", heldNone[0], heldNone[1])
	if heldNone[0] < 150 || heldNone[1] < 3 {
		t.Fatalf("worlds planned in part beside other workspaces holding nobody here %v: a plan that finds nobody held reads everyone", heldNone)
	}
	t.Logf("%d worlds: at the limit %d planned from what EnrichReadsOf names, %d needed everyone; with places left %d and %d; from the census %d and %d, and after the walk %d and %d (%d with nothing to enrich); %d with people excluded, %d without a limit, %d with refresh_on (%d without the census)",
		worlds, read[0], whole[0], read[1], whole[1], read[2], whole[2], read[3], whole[3], nothing, excluded, unlimited, refreshOn, refreshOnWalked)
	if read[0] < 250 || read[1] < 150 || read[2] < 400 || whole[2] < 20 || read[3] < 120 || whole[3] < 5 || nothing < 100 || excluded < 300 || unlimited < 200 || refreshOn < 300 || refreshOnWalked < 150 {
		t.Fatalf("worlds planned in part and needing everyone (at the limit, with places left, from the census): %v, %v: the test no longer tests EnrichReadsOf", read, whole)
	}
	t.Logf("%d worlds with moves planned in part, %d of them renaming an enrich block, a track or a history's address", moved, movedNames)
	if moved < 60 || movedNames < 30 {
		t.Fatalf("%d worlds with moves planned in part: the test no longer tests moved blocks", moved)
	}
}

// keysPast reports whether the other workspaces of o list more keys than
// maxReuseKeys (scanKeyed).
func keysPast(o Options) bool {
	if o.ReuseHeld == nil {
		return false
	}
	keys, err := o.ReuseHeld()
	return err == nil && len(keys) > maxReuseKeys
}

// countListed counts a world whose plan found the people held elsewhere
// it had left unread at the limit (findHeld): compared walking its
// places or counting past them (n[0]), compared from a census counting
// members unread (n[1]), or needing everyone (n[2]).
func countListed(n [3]int, r enrichPlanned) [3]int {
	switch {
	case !r.heldListed:
	case !r.compared:
		n[2]++
	case r.census:
		n[1]++
	default:
		n[0]++
	}
	return n
}

// samePlanOfEnrich plans f with o over what EnrichReadsOf names, when it
// answers, and compares the plan with the whole state's unless Build says
// it needs everyone; 1 when it compared.
func samePlanOfEnrich(t *testing.T, seed int, f *fixture, o Options) int {
	t.Helper()
	if planOfEnrich(t, seed, f, o).compared {
		return 1
	}
	return 0
}

// enrichPlanned is how planOfEnrich planned: compared with the whole
// state's plan (else it needed everyone); walked: the block had places
// left whose people the plan asked the store for; census: the plan was
// made from the census of every enrichment (EnrichReadsOf chose it, or
// Recount after the walk could not decide: recounted).
// nothing: the block has nothing to enrich (its bound is 0); failed: the
// plans failed alike (a where that cannot be evaluated).
// excluded: an exclude block named people of the plan; unlimited: the
// block has no limit; refreshOn: a block has refresh_on; paged: a block
// with a where counted its people to enrich, read in pages
// (candidatePages); reused: another workspace gave enrichments.
type enrichPlanned struct {
	compared, walked, census, recounted, nothing, failed bool
	excluded, unlimited, refreshOn, paged, reused        bool
	// sketchWhere: a where was evaluated on people read in sketch
	// (whereSketches); sketchFailed: it failed on one, needing everyone;
	// pagedWhole: some were read whole, a profile block reading their
	// page (pagedSketches).
	sketchWhere, sketchFailed, pagedWhole bool
	// heldRead: how many people held elsewhere the plan read as it met
	// them or counted them past the places (reuseFacts.read); heldListed:
	// the plan found the people held it had left unread at the limit
	// (findHeld).
	heldRead   int
	heldListed bool
	// heldNone: the keys of the other workspaces name nobody here, and
	// the plan knew it (reuseFacts.held empty, not unread).
	heldNone bool
}

// planOfEnrich is samePlanOfEnrich, building the plan again from the
// census when Recount says so, as run.Plan does.
func planOfEnrich(t *testing.T, seed int, f *fixture, o Options) enrichPlanned {
	t.Helper()
	b := enrichBase(f.st)
	return planOfEnrichIn(t, seed, f, o, b, b)
}

// planOfEnrichIn is planOfEnrich over b, whose questions of the plan ix
// answers (b itself, or b with some hidden: keylessBase).
func planOfEnrichIn(t *testing.T, seed int, f *fixture, o Options, b *state.Base, ix EnrichStore) enrichPlanned {
	t.Helper()
	r, facts, ok, err := EnrichReadsOf(f.cfg, b.Records, o, ix)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	if !ok {
		return enrichPlanned{}
	}
	st, err := r.Read(b)
	if err == nil {
		err = o.Expired.ReadKept(b, st) // the kept form, as run.Plan reads them
	}
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	facts.Fill(st)
	po := o
	po.Enrich = facts
	got, diags := Build(f.cfg, st, po)
	out := enrichPlanned{walked: facts.walked, census: facts.census || len(facts.censusOf) > 0, pagedWhole: facts.pagedWhole > 0}
	if again := facts.Recount(); again != nil {
		facts, out.census, out.recounted = again, true, true
		po.Enrich = facts
		got, diags = Build(f.cfg, st, po)
	}
	if err := facts.Err(); err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	out.sketchFailed = facts.sketchFailed
	if facts.reuse != nil {
		out.heldRead, out.heldListed = facts.reuse.read, facts.reuse.listed
		out.heldNone = !facts.reuse.unread && facts.reuse.held != nil && len(facts.reuse.held) == 0
		if most := heldReadBound(f, facts); out.heldRead > most {
			t.Fatalf("seed %d: %d people held elsewhere read while the plan was built, past maxHeldRead and half the people listed (%d)", seed, out.heldRead, most)
		}
	}
	if facts.NeedsEveryone() {
		return out
	}
	wo := o
	wo.Moved = nil // the whole state's moves are its own
	want, wantDiags := Build(f.cfg, f.st, wo)
	if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
		t.Fatalf("seed %d (targets %q, %d people read of %d, census %v): the plan over what EnrichReadsOf names differs (-whole +read):\n%s",
			seed, o.Targets, len(st.People), len(f.st.People), out.census, d)
	}
	if w, g := wantDiags.Error(), diags.Error(); w != g {
		t.Fatalf("seed %d: the plan over what EnrichReadsOf names says %q, the whole state's %q", seed, g, w)
	}
	out.failed = wantDiags.HasErrors()
	out.compared = true
	out.excluded = got.Savings.Excluded.People > 0
	out.reused = got.Savings.Reused.People > 0
	out.unlimited = f.cfg.Enriches[0].Limit <= 0
	out.refreshOn = anyRefreshOn(f.cfg)
	out.paged = facts.pages > 0
	out.sketchWhere = facts.sketchWheres > 0
	for _, c := range got.Changes {
		if c.Address == f.cfg.Enriches[0].Address && c.CallsMax == 0 {
			out.nothing = true
		}
	}
	return out
}

// heldReadBound is the most people held elsewhere the plan of f's
// enrich blocks (those facts counts) may read as they meet or count
// them: maxHeldRead, or half their sources' lead entries, each source
// once (heldListedPart; a profile or an import counted as one).
func heldReadBound(f *fixture, facts *EnrichFacts) int {
	listed, seen := 0, map[string]bool{}
	for _, e := range f.cfg.Enriches {
		for _, addr := range f.cfg.Resolve(e.From) {
			if facts.blocks[e.Address] == nil || seen[addr] {
				continue
			}
			seen[addr] = true
			if rec := f.st.Searches[addr]; rec != nil {
				listed += rec.Leads().Len()
			} else {
				listed++
			}
		}
	}
	return max(maxHeldRead, listed/heldListedPart)
}

// setReadKnobs sets the knobs of the reads in part that the random worlds
// vary by seed: walkChunk (drawn from rng), maxCounted (40 in some
// worlds, a count given up past a few chunks), maxPlacesRead,
// maxCensusRead and storeSize.
func setReadKnobs(rng *rand.Rand, seed int) {
	storeSize = []int{-1, -1, 0}[seed%3]
	walkChunk = []int{1, 2, 3, 4096}[rng.IntN(4)]
	maxCounted = []int{1, 4, 1 << 20}[seed%3]
	if seed%3 == 2 && seed%5 == 0 {
		maxCounted = 40
	}
	maxPlacesRead = []int{100_000, 100_000, 2}[seed%3]
	maxCensusRead = []int{1 << 30, 1 << 30, 1 << 30, 3}[seed%4]
}

// keepReadKnobs returns what puts back the knobs the random worlds set
// (setReadKnobs, and maxReuseRead).
func keepReadKnobs() func() {
	n, m, p, c, r, f, h, l, k, s := walkChunk, maxCounted, maxPlacesRead, maxCensusRead, maxReuseRead, maxReusePrefix, maxHeldRead, heldListedPart, maxReuseKeys, storeSize
	return func() {
		walkChunk, maxCounted, maxPlacesRead, maxCensusRead, maxReuseRead, maxReusePrefix, maxHeldRead, heldListedPart, maxReuseKeys, storeSize = n, m, p, c, r, f, h, l, k, s
	}
}

// enrichWorld is a random world of the enrich blocks EnrichReadsOf answers.
// A crowded world's searches keep more people, so that many plain people
// come after the places its limit leaves.
func enrichWorld(rng *rand.Rand) (*fixture, Options) {
	f := newFixture()
	f.cfg.API.MaxCredits = 1 << 30
	crowded := rng.IntN(3) == 0
	pool, most := 15+rng.IntN(50), 25
	if crowded {
		pool, most = 60+rng.IntN(100), 80
	}
	pick := func(xs ...int) int { return xs[rng.IntN(len(xs))] }
	var refs []string
	// In a quiet world no source runs: only the people known count.
	quiet := rng.IntN(2) == 0
	for i := range 1 + rng.IntN(4) {
		addr := fmt.Sprintf(`search.a["%d"]`, i)
		every := refresh(time.Duration(pick(0, 5)) * day)
		if quiet {
			every = refresh(0)
		}
		s := f.search(addr, kw("a", "city", fmt.Sprint(i)), maxResults(pick(0, 3, 10, 3*most)), every)
		refs = append(refs, addr)
		n := rng.IntN(most)
		ids := make([]string, n)
		for j := range ids {
			ids[j] = fmt.Sprintf("%d.p", rng.IntN(pool))
		}
		switch k := rng.IntN(5); {
		case k == 0 && !quiet: // never ran: it runs
		case k == 1 && !quiet: // ran with another request
			f.ranRequest(addr, t0.Add(-day), api.SearchRequest{Params: kw("old")}, 0, ids...)
		default:
			f.ranRequest(addr, t0.Add(-time.Duration(rng.IntN(10))*day), s.Request, s.MaxResults, ids...)
		}
	}
	if rng.IntN(3) == 0 {
		f.profile("profile.p0", fmt.Sprintf("page-%d.p", rng.IntN(pool)))
		refs = append(refs, "profile.p0")
		if rng.IntN(2) == 0 {
			f.read("profile.p0", t0.Add(-day))
		}
	}
	if rng.IntN(2) == 0 {
		// A search no enrich block reads runs: the plan runs a source.
		f.search("search.x", kw("x"), maxResults(5))
	}
	if crowded {
		// People no source of the blocks holds (some of whom a block
		// enriched): they count under the limit, not in its sources.
		s := f.search("search.b", kw("b"))
		ids := make([]string, rng.IntN(40))
		for j := range ids {
			ids[j] = fmt.Sprintf("%d.q", j)
		}
		f.ranRequest(s.Address, t0.Add(-day), s.Request, 0, ids...)
	}
	e := f.enrich("e0", refs[:1+rng.IntN(len(refs))], pick(1, 3, 8, 20), time.Duration(pick(0, 30, 30))*day)
	blocks := []string{e.Address, "enrich.gone"}
	if rng.IntN(2) == 0 {
		o := f.enrich("e1", refs[rng.IntN(len(refs)):], pick(0, 4), time.Duration(pick(0, 10, 60))*day)
		blocks = append(blocks, o.Address)
	}
	worldPeople(rng, f, blocks)
	if crowded && rng.IntN(2) == 0 {
		// The block enriched many of them long ago: its bound (the
		// enrichments it may refresh and its places) may be more than
		// the people of its sources to enrich, all of whom then count.
		for _, id := range f.st.Searches["search.b"].LeadIDs {
			if p := f.st.People[id]; p.Enrichment == nil && p.Status == "" && rng.IntN(4) > 0 {
				f.enriched(id, e.Address, t0.Add(-400*day))
			}
		}
	}
	capWorld(rng, f, e)
	excludeWorld(rng, f)
	refreshOnWorld(rng, f)
	o := Options{Now: t0, Offline: true, FileExists: func(string) bool { return true }}
	if len(f.cfg.Enriches) == 1 || rng.IntN(2) == 0 {
		o.Targets = []string{e.Address}
	}
	return f, o
}

// capWorld makes some worlds' limit a safety cap (far above the people),
// and some worlds' people all enriched by e, fresh or not (nothing may
// be left to enrich).
func capWorld(rng *rand.Rand, f *fixture, e *config.Enrich) {
	switch rng.IntN(6) {
	case 0, 1:
		e.Limit = 5_000_000
	case 2:
		e.Limit = 0 // none: every candidate
	}
	if rng.IntN(4) == 0 {
		age := []time.Duration{day, 400 * day}[rng.IntN(2)]
		for _, id := range sortedPeople(f.st) {
			if f.st.People[id].Enrichment == nil && rng.IntN(10) > 0 {
				f.enriched(id, e.Address, t0.Add(-age))
			}
		}
	}
}

// worldPeople makes some people leave the network or lose their page
// name, and gives some enrichments by blocks (of various ages, copied,
// of an unknown outcome) and erased ones.
func worldPeople(rng *rand.Rand, f *fixture, blocks []string) {
	ages := []time.Duration{day, 7 * day, 20 * day, 40 * day, 400 * day}
	if f.st.UnknownEnrichments == nil {
		f.st.UnknownEnrichments = map[string]*state.UnknownEnrichment{}
	}
	if f.st.ErasedEnrichments == nil {
		f.st.ErasedEnrichments = map[string]int{}
	}
	for _, id := range sortedPeople(f.st) {
		p := f.st.People[id]
		if rng.IntN(2) == 0 {
			f.enriched(id, blocks[rng.IntN(len(blocks))], t0.Add(-ages[rng.IntN(len(ages))]))
			switch rng.IntN(8) {
			case 0:
				p.Enrichment.By = state.ReusedPrefix + "other"
				p.Enrichment.CopiedBy = blocks[0]
			case 1:
				p.Enrichment.By = "import.crm" // an e-mail an import gave
			}
		}
		switch rng.IntN(8) {
		case 0:
			p.Status = state.StatusLeft
		case 1:
			p.Lead.PageName = ""
		case 2:
			f.st.UnknownEnrichments[id] = &state.UnknownEnrichment{At: t0.Add(-day), By: blocks[0], Credits: 1}
		}
	}
	if rng.IntN(3) == 0 {
		f.st.ErasedEnrichments[blocks[0]] = 1 + rng.IntN(3)
	}
}

// enrichBase is storedBase whose store also tells which people exist, as
// the plan of an enrich block asks (placesWalk.count).
func enrichBase(st *state.State) *state.Base {
	return enrichBaseIn(st, enrichMemStore{memStore{st}})
}

// enrichBaseIn is enrichBase over store, which holds st's people.
func enrichBaseIn(st *state.State, store state.PeopleStore) *state.Base {
	b := storedBase(st)
	kept := map[string]int{}
	for a := range b.Records.Searches {
		kept[a] = b.Kept(a)
	}
	return state.NewStoredBase(b.Records, kept, store)
}

type enrichMemStore struct{ memStore }

// Get reads people as a store does: each call gives new copies, so that
// a person read twice is two people in memory (readWhole).
func (m enrichMemStore) Get(ids []string) ([]*state.Person, error) {
	var out []*state.Person
	for _, id := range ids {
		if p := m.st.People[id]; p != nil {
			c := *p
			out = append(out, &c)
		}
	}
	return out, nil
}

func (m enrichMemStore) Exist(ids []string) ([]string, error) {
	var out []string
	for _, id := range ids {
		if m.st.People[id] != nil {
			out = append(out, id)
		}
	}
	return out, nil
}

func (m memStore) Sketched(addr string, before time.Time) ([]*state.Person, error) {
	return state.NewBase(m.st).Sketched(addr, before)
}

func (m memStore) CountEnrichedBefore(addr string, before time.Time) (int, error) {
	return state.NewBase(m.st).CountEnrichedBefore(addr, before)
}

func (m memStore) CopiedBy(addr string) ([]string, error) { return state.NewBase(m.st).CopiedBy(addr) }
func (m memStore) Left() ([]string, error)                { return state.NewBase(m.st).Left() }
func (m memStore) Pageless() ([]string, error)            { return state.NewBase(m.st).Pageless() }
func (m memStore) Enrichers() ([]string, error)           { return state.NewBase(m.st).Enrichers() }

func (m memStore) SketchedAmong(ids []string) ([]*state.Person, error) {
	return state.NewBase(m.st).SketchedAmong(ids)
}

// TestDistinctIDs counts the distinct IDs of sources that share some
// (radix-sorted from 16,384 on), with the hash and with one under which
// different IDs meet (their length).
func TestDistinctIDs(t *testing.T) {
	var many []string
	for i := range 100000 {
		many = append(many, fmt.Sprintf("n%d", i))
	}
	cases := []struct {
		sources []source
		want    int
	}{
		{nil, 0},
		{[]source{{ids: state.PackIDs([]string{"a", "b", "a"})}, {ids: state.IDsOf([]string{"b", "cc"})}, {}}, 3},
		{[]source{{ids: state.IDsOf(many)}, {ids: state.PackIDs(many[:500])}, {ids: state.PackIDs([]string{"x"})}}, 100001},
	}
	for _, byLength := range []bool{false, true} {
		if byLength {
			defer func(h func() func(string) uint32) { idHash = h }(idHash)
			idHash = func() func(string) uint32 { return func(id string) uint32 { return uint32(len(id)) } }
		}
		for _, c := range cases {
			if got := distinctIDs(c.sources); got != c.want {
				t.Errorf("distinctIDs of %d sources (hashed by length: %v) = %d, want %d", len(c.sources), byLength, got, c.want)
			}
		}
	}
}

// TestManyPlacesLeftTakeTheCensus: a block with more places left than
// maxPlacesRead is answered from the census of every enrichment
// (collectCensus), not by walking its places (each would be a person
// read whole), and not at all by a store that does not list the
// enrichments (it reads every person); with as many, the walk answers.
func TestManyPlacesLeftTakeTheCensus(t *testing.T) {
	defer func(n int) { maxPlacesRead = n }(maxPlacesRead)
	for seed := range 1000 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xe4c4))
		rng.IntN(4) // the walk's chunk (TestEnrichReadsMakeTheSamePlan)
		f, o := enrichWorld(rng)
		maxPlacesRead = 1 << 30
		b := storedBase(f.st)
		// Without unknown outcomes, the places the counts show are the
		// places left (with them, EnrichReadsOf counts each as held);
		// noLister lists no values for exclude blocks, nor the changes
		// refresh_on reads.
		if r := planOfEnrich(t, seed, f, o); !r.compared || !r.walked || r.census || len(f.st.UnknownEnrichments) > 0 || len(f.cfg.Excludes) > 0 || anyRefreshOn(f.cfg) {
			continue
		}
		e := f.cfg.Enriches[0]
		places := e.Limit - newEnv(f.cfg, f.st, o.Now).used(e)
		for _, c := range []struct {
			max        int
			store      EnrichStore
			ok, census bool
		}{{places, b, true, false}, {places - 1, b, true, true}, {places, noLister{b}, true, false}, {places - 1, noLister{b}, false, false}} {
			maxPlacesRead = c.max
			_, facts, ok, err := EnrichReadsOf(f.cfg, b.Records, o, c.store)
			if err != nil || ok != c.ok || ok && facts.census != c.census {
				t.Fatalf("seed %d: %d places left, at most %d walked (%T): answered %v (census %v), want %v (census %v)", seed, places, c.max, c.store, ok, facts != nil && facts.census, c.ok, c.census)
			}
		}
		return
	}
	t.Fatal("no world with places left planned from the store")
}

// noLister is a store that does not list its enrichments
// (state.EnrichmentLister).
type noLister struct{ EnrichStore }

// TestPlacesLeftCostThePlaces plans a block with 5 places left under its
// limit over 3,000 people, every third of them enriched, from the store:
// the plan is the whole state's, and it asks about the first people in
// order only (twice the places and 16) and reads 5 of them whole, those
// who take the places. A person holding the block's own enrichment, or
// another block's that the block's refresh finds fresh, takes none and
// is not read; one holding another block's stale enrichment takes one.
func TestPlacesLeftCostThePlaces(t *testing.T) {
	for _, tc := range []struct {
		name   string
		by     string        // the block of every third person's enrichment
		age    time.Duration // its age (the block's refresh is 30 days)
		enrich []string      // the people the plan enriches
	}{
		{"its own enrichments", placesBlock, day, []string{"0001.p", "0002.p", "0004.p", "0005.p", "0007.p"}},
		{"another block's fresh enrichments", "enrich.gone", day, []string{"0001.p", "0002.p", "0004.p", "0005.p", "0007.p"}},
		{"another block's stale enrichments", "enrich.gone", 40 * day, []string{"0000.p", "0001.p", "0002.p", "0003.p", "0004.p"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, kept, e := placesLeft(tc.by, tc.age)
			got, store := planOfPlacesLeft(t, f, kept, e.Address)
			c := got.Changes[len(got.Changes)-1]
			if c.Address != e.Address || c.Calls != 5 || !slices.Equal(c.PersonIDs, tc.enrich) {
				t.Fatalf("%s enriches %d people %v, want %v", c.Address, c.Calls, c.PersonIDs, tc.enrich)
			}
			if store.asked != 2*5+16 || store.read != 5 {
				t.Fatalf("the plan asked about %d people and read %d whole, want %d and 5", store.asked, store.read, 2*5+16)
			}
		})
	}
}

// placesLeft is a block with 5 places left under its limit (1,005) over
// 3,000 people, every third enriched by block by, age ago; kept are the
// lead lists of its sources.
func placesLeft(by string, age time.Duration) (*fixture, map[string]int, *config.Enrich) {
	f := newFixture()
	var refs, ids []string
	kept := map[string]int{}
	for k := range 10 { // a search keeps 300 people
		s := f.search(fmt.Sprintf(`search.a["%d"]`, k), kw("a", "city", fmt.Sprint(k)))
		var leads []string
		for i := range 300 {
			leads = append(leads, fmt.Sprintf("%04d.p", 300*k+i))
		}
		f.ranRequest(s.Address, t0.Add(-day), s.Request, 0, leads...)
		refs, ids, kept[s.Address] = append(refs, s.Address), append(ids, leads...), len(leads)
	}
	e := f.enrich("e0", refs, 1005, 30*day)
	for i := 0; i < len(ids); i += 3 {
		f.enriched(ids[i], by, t0.Add(-age))
	}
	if by != e.Address {
		// The places the limit leaves stay 5.
		f.st.ErasedEnrichments = map[string]int{e.Address: 1000}
	}
	return f, kept, e
}

// TestBlockNotCountedNeedsEveryone: a plan over a state read in part
// whose store's counts miss the block it plans (facts of another block)
// needs everyone: planned with no enrichment counted, the block would
// take as places the 1,000 its enrichments hold.
func TestBlockNotCountedNeedsEveryone(t *testing.T) {
	f, kept, e := placesLeft(placesBlock, day)
	o := Options{Now: t0, Offline: true, Targets: []string{e.Address}, FileExists: func(string) bool { return true }}
	st, facts, _ := readFromStore(t, f, kept, o)
	facts.blocks = map[string]*enrichCounts{"enrich.other": facts.blocks[e.Address]}
	o.Enrich = facts
	Build(f.cfg, st, o)
	if !facts.NeedsEveryone() {
		t.Fatal("a block the store did not count was planned over a state read in part")
	}
}

// planOfPlacesLeft plans the enrich block at addr of f from a store of
// f's state that counts what the plan asks of it (the lead lists of kept
// read first), checking the plan is the whole state's.
func planOfPlacesLeft(t *testing.T, f *fixture, kept map[string]int, addr string) (*Plan, *countingStore) {
	t.Helper()
	got, store, facts := planFromStore(t, f, kept, addr)
	if facts.NeedsEveryone() {
		t.Fatal("the plan needs everyone")
	}
	return got, store
}

// planFromStore is planOfPlacesLeft, whose plan may need everyone: facts
// say so (the plan is then not compared).
func planFromStore(t *testing.T, f *fixture, kept map[string]int, addr string) (*Plan, *countingStore, *EnrichFacts) {
	t.Helper()
	o := Options{Now: t0, Offline: true, Targets: []string{addr}, FileExists: func(string) bool { return true }}
	st, facts, store := readFromStore(t, f, kept, o)
	store.asked, store.read = 0, 0
	po := o
	po.Enrich = facts
	got, _ := Build(f.cfg, st, po)
	if err := facts.Err(); err != nil {
		t.Fatal(err)
	}
	if facts.NeedsEveryone() {
		return got, store, facts
	}
	want, _ := Build(f.cfg, f.st, o)
	if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
		t.Fatalf("the plan differs (-whole +read):\n%s", d)
	}
	return got, store, facts
}

// readFromStore reads the state a plan of f with o reads in part from a
// store of f's state (the lead lists of kept read first), filled with
// the facts the store gives (EnrichFacts.Fill).
func readFromStore(t *testing.T, f *fixture, kept map[string]int, o Options) (*state.State, *EnrichFacts, *countingStore) {
	t.Helper()
	store := &countingStore{enrichMemStore: enrichMemStore{memStore{f.st}}}
	st, facts := readFromStoreIn(t, f, kept, o, store)
	return st, facts, store
}

// readFromStoreIn is readFromStore from store, which holds f's people.
func readFromStoreIn(t *testing.T, f *fixture, kept map[string]int, o Options, store state.PeopleStore) (*state.State, *EnrichFacts) {
	t.Helper()
	b := state.NewStoredBase(storedBase(f.st).Records, kept, store)
	r, facts, ok, err := EnrichReadsOf(f.cfg, b.Records, o, b)
	if err != nil || !ok {
		t.Fatalf("EnrichReadsOf: %v, %v", ok, err)
	}
	st, err := b.Reading(r.Searches, r.Persons)
	if err != nil {
		t.Fatal(err)
	}
	facts.Fill(st)
	return st, facts
}

// TestCountGivenUpNeedsEveryone: a block at its limit whose source runs
// is bounded by its limit (5: the people it enriched may be taken from it
// by a refresh, each freeing a place) or by the people it may enrich, the
// 3 its running source may bring and those of its sources not read
// (plain: none holds an enrichment), whichever is less. The store counts
// those people as far as the limit's bound needs them (2 of 10); when it
// gives up before (past maxCounted), the plan's bound is not known and
// the plan needs everyone, even one person short: the bound would say 4
// calls and credits at most where the whole state says 5.
func TestCountGivenUpNeedsEveryone(t *testing.T) {
	defer func(n, m int) { walkChunk, maxCounted = n, m }(walkChunk, maxCounted)
	for _, tc := range []struct {
		name          string
		chunk, most   int
		needsEveryone bool
	}{
		{"counted in one question", 4096, 1 << 20, false},
		{"counted one at a time", 1, 1 << 20, false},
		{"given up one short", 1, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			walkChunk, maxCounted = tc.chunk, tc.most
			var leads []string
			for i := range 10 {
				leads = append(leads, fmt.Sprintf("%d.p", i))
			}
			f, kept, addr := countWorld(leads, nil) // at the limit: 5
			got, _, facts := planFromStore(t, f, kept, addr)
			if facts.NeedsEveryone() != tc.needsEveryone {
				t.Fatalf("the plan needs everyone: %v, want %v", facts.NeedsEveryone(), tc.needsEveryone)
			}
			if c := got.Changes[len(got.Changes)-1]; !tc.needsEveryone && (c.Address != addr || c.CallsMax != 5) {
				t.Fatalf("%s: at most %d calls, want 5", c.Address, c.CallsMax)
			}
		})
	}
}

// placesBlock is the address of the block placesLeft plans.
const placesBlock = "enrich.e0"

// countingStore counts the people a plan asks the store about
// (SketchedAmong) and reads whole (Get).
type countingStore struct {
	enrichMemStore
	asked, read int
	// listed counts the lists of a block's enrichments asked for.
	listed int
}

func (c *countingStore) Enriched(addr string) ([]string, error) {
	c.listed++
	return c.enrichMemStore.Enriched(addr)
}

func (c *countingStore) SketchedAmong(ids []string) ([]*state.Person, error) {
	c.asked += len(ids)
	return c.enrichMemStore.SketchedAmong(ids)
}

func (c *countingStore) Get(ids []string) ([]*state.Person, error) {
	c.read += len(ids)
	return c.enrichMemStore.Get(ids)
}

// TestCensusFindsEveryEnrichment takes the census of 70,000 enrichments
// (two pages) (and none) for members who are every other enriched person
// and some who are not enriched, one of them met twice. It finds each
// member by its ID, enriched or not, stale when older than the block's
// refresh; the same member at the index of its first meeting; and no
// other ID.
func TestCensusFindsEveryEnrichment(t *testing.T) {
	e := &config.Enrich{Address: "enrich.e0", Refresh: 30 * day}
	for _, n := range []int{0, 1, 70000} {
		st := state.New()
		var members []string
		for i := range n {
			id := fmt.Sprintf("%d.p", i)
			st.People[id] = &state.Person{ID: id, Enrichment: &state.Enrichment{By: []string{"enrich.e1", "import.crm"}[i/2%2], EnrichedAt: t0.Add(-time.Duration(i%60) * day)}}
			if i%2 == 0 {
				members = append(members, id)
			}
		}
		plain := []string{fmt.Sprintf("%d.p", n), "y", "1.p0"}
		sources := []source{{ids: state.PackIDs(members)}, {}, {ids: state.IDsOf(append(plain, plain[1]))}}
		b := state.NewBase(st)
		c, err := takeCensus(b, b, e, t0, sources)
		if err != nil {
			t.Fatal(err)
		}
		for k, id := range members {
			i := k * 2
			if got := c.lookUp(id); got != k || c.id(got) != id || c.member(k) != k || c.candidate(got) != (i%60 >= 30) {
				t.Fatalf("%d enrichments: %s found at %d of %d (candidate: %v)", n, id, got, k, got >= 0 && c.candidate(got))
			}
		}
		for j, id := range plain {
			k := len(members) + j
			if got := c.lookUp(id); got != k || c.id(got) != id || !c.candidate(got) {
				t.Fatalf("%d enrichments: %s found at %d of %d", n, id, got, k)
			}
		}
		if k := len(members) + len(plain); c.member(k) != len(members)+1 || c.n-len(c.dups) != k {
			t.Fatalf("%d enrichments: the second y is member %d; %d members in all", n, c.member(k), c.n-len(c.dups))
		}
		for _, id := range []string{"", "x", "3.p", fmt.Sprintf("%d.p", n+1), "0.p "} {
			if k := c.lookUp(id); k >= 0 || !c.candidate(k) {
				t.Fatalf("%d enrichments: %q found at %d", n, id, k)
			}
		}
	}
}
