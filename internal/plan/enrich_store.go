package plan

import (
	"hash/maphash"
	"maps"
	"slices"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// EnrichFacts are what a store's indexes tell a plan of one enrich block
// instead of every person (EnrichReadsOf): per block, the enrichments it
// made and copied, and how many of the former are at least so old. Build
// given them (Options.Enrich) plans over a state holding only the people
// EnrichReadsOf names, and says so when that is not enough
// (NeedsEveryone).
type EnrichFacts struct {
	blocks map[string]*enrichCounts
	// needsEveryone: Build found the people read do not decide the plan.
	needsEveryone bool
	// sketches are the people of enrichments read as state.Sketch gives
	// them (Fill); leadSketches: given the lead fields the wheres read
	// (whereSketches), on which a where was evaluated sketchWheres times,
	// and failed (sketchFailed: the plan needs everyone); pagedWhole of
	// them were read whole for their page (pagedSketches).
	sketches []*state.Person
	// late are the IDs of the sketches an apply let go once its plan
	// was made (LetSketchesGo), read whole when its engine first chooses
	// people to enrich (FillWhole).
	late         []string
	leadSketches bool
	sketchWheres int
	sketchFailed bool
	pagedWhole   int
	// packed are the sketches read packed instead (packs: the plan asks
	// nothing more of them than packSketches allows), those f.asks name,
	// given the lead fields leadKeys (whereSketches).
	packed   *state.CensusSketches
	packedAt map[string]int32 // by ID (env.sketchAt)
	packs    bool
	asks     []sketchAsk
	leadKeys []string
	// store answers the plan of a block with places left (placesWalk);
	// walked says the plan asked it which people take them, err why it
	// could not.
	store  EnrichStore
	walks  map[string]*placesWalk // by block address
	walked bool
	err    error
	// many: the plan has several enrich blocks (enrichMany); their walks
	// share the people they read whole (whole), and each may read extra
	// people past its places (claimsRead).
	many  bool
	whole map[string]*state.Person
	extra map[string]int
	// collections counts the times enrichClaims collected the blocks;
	// stateSize is how many people the store holds, once asked (readsMost).
	collections, stateSize int
	sizeKnown              bool
	// censusOf are the blocks of several planned from the census, the
	// others walk their places; undecided are those whose plan the people
	// read did not decide (checkRead).
	censusOf  map[string]bool
	undecided map[string]bool
	// counted are, by block, the people to enrich its census counted
	// without reading them (countOnly).
	counted map[string]*placedIDs
	// nobody are, by block, how many distinct lead IDs of the people its
	// census counted name no person (countCandidates): not members.
	nobody map[string]int
	// pages counts the pages of people to enrich read for a where
	// (candidatePages).
	pages int
	// census: the plan tells the members not read apart from every
	// enrichment, read narrowly (collectCensus), instead of walking the
	// places; censusRead are the people to enrich it read whole.
	census     bool
	censusRead map[string]*state.Person
	// reuse: what the plan learned of the other workspaces (reuseReads),
	// nil without any.
	reuse *reuseFacts
	// runs are the sources the plan runs (noteRuns), whose lead lists it
	// did not walk.
	runs map[string]bool
	// moved are the moves the state read was given (Options.Moved): the
	// people read whole while Build runs are moved alike (people).
	moved *Moving
	// trackedSketch are the people in sketch a track of this run reads
	// (builder.trackNow); metSketch, by block, the people in sketch met
	// among its members (unreadFresh, formerSketched).
	trackedSketch marks
	metSketch     map[string]marks
}

// Fill gives st, read as EnrichReadsOf says, the people it reads in
// sketch (state.Sketch): those holding a stale enrichment of the block or
// an imported e-mail, unless st holds them read whole. Read packed
// (packSketches), they stay so, but for those st holds (keepUnread): the
// plan finds them by ID (env.sketchAt).
func (f *EnrichFacts) Fill(st *state.State) {
	f.keepUnread(st)
	for _, p := range f.sketches {
		if st.People[p.ID] == nil {
			st.People[p.ID] = p
		}
	}
}

type enrichCounts struct {
	owned, copies int
	aged          map[time.Duration]int // owned enrichments at least that old
}

// EnrichReadsOf says what the plan of cfg reads of a store instead of every
// person when ReadsOf asks for every person only for one enrich block:
// a limit or none, a refresh (or none), no where, sources that are
// searches and profiles, other workspaces to reuse from only when they
// list their keys (opts.ReuseHeld: reuseReads), and opts.Now set;
// refresh_on as refreshOnReads allows. A track or an import planned with
// it adds its people (enrich_meets.go). Any other enrich blocks (several,
// or one with a where) are asked of enrichReadsMany, a track or an import
// beside them alike.
// It reads the lead lists ReadsOf would, the people who may decide the
// block's plan (enrichReads), the people an exclude block may name
// (excludedReads), and counts from the indexes. When the counts show the
// limit leaves places, the plan asks the store, in the order it picks
// people, for the first who take them (placesWalk); without a limit, or
// when more than maxPlacesRead places are left (a limit as a safety
// cap), it asks the store for every enrichment narrowly and reads whole
// only the people to enrich (collectCensus), when the store lists them
// (state.EnrichmentLister). ok is false for any other plan: it reads
// every person.
func EnrichReadsOf(cfg *config.Config, records *state.State, opts Options, ix EnrichStore) (r Reads, facts *EnrichFacts, ok bool, err error) {
	if opts.Moved != nil {
		return movedEnrichReads(cfg, records, opts, ix)
	}
	return enrichReadsOf(cfg, records, opts, ix)
}

// enrichReadsOf is EnrichReadsOf of a plan without moves to make.
func enrichReadsOf(cfg *config.Config, records *state.State, opts Options, ix EnrichStore) (r Reads, facts *EnrichFacts, ok bool, err error) {
	e, base, ok := enrichAlone(cfg, records, opts)
	if !ok {
		return enrichReadsMany(cfg, records, opts, ix)
	}
	counts, copied, err := countEnrich(cfg, e, opts.Now, ix)
	if err != nil {
		return Reads{}, nil, false, err
	}
	// The places the limit holds (env.used): each place left is read
	// whole, and beyond maxPlacesRead a read of everyone costs less.
	held := counts.owned + counts.copies + records.ErasedEnrichments[e.Address]
	for _, u := range records.UnknownEnrichments {
		if u.By == e.Address {
			held++
		}
	}
	_, lists := ix.(state.EnrichmentLister)
	// Without a limit every candidate is to enrich: the census.
	census := e.Limit <= 0 || e.Limit-held > maxPlacesRead
	if census && !lists {
		return Reads{}, nil, false, nil
	}
	scope := reuseScope{blocks: []*config.Enrich{e}, now: opts.Now, noPlace: e.Limit > 0 && e.Limit <= held, from: cfg.Resolve(e.From)}
	if e.Limit > 0 && !census {
		scope.places = e.Limit - held
	}
	named, reuse, ok, err := namedReads(cfg, opts, ix, scope)
	if err != nil || !ok {
		return Reads{}, nil, false, err
	}
	facts = &EnrichFacts{blocks: map[string]*enrichCounts{e.Address: counts}, store: ix, census: census, reuse: reuse,
		packs: packSketches(cfg, opts, ix)}
	if base.Persons, err = enrichReads(e, append(base.Persons, named...), copied, records, opts.Now, ix, facts.sketch); err != nil {
		return Reads{}, nil, false, err
	}
	if err := facts.readPacked(); err != nil {
		return Reads{}, nil, false, err
	}
	if base.Persons, err = facts.heldSketchReads(opts.Reuse, base.Persons); err != nil {
		return Reads{}, nil, false, err
	}
	return base, facts, true, nil
}

// heldSketchReads adds to persons the people of f's sketches the other
// workspaces answer for, or may, to be read whole (heldSketches).
func (f *EnrichFacts) heldSketchReads(lookup ReuseLookup, persons []string) ([]string, error) {
	kept, err := f.reuse.heldSketches(lookup, f.store, f.sketches)
	if err != nil {
		return nil, err
	}
	return append(persons, kept...), nil
}

// namedReads are the people the plan of enrich blocks reads whole
// besides what each block's plan reads: every person an exclude block
// may name (excludedReads), with refresh_on every person whose history
// holds a change (refreshOnReads), and with other workspaces the people
// they may give an enrichment of (reuseReads, whose facts it returns).
func namedReads(cfg *config.Config, opts Options, ix EnrichStore, scope reuseScope) ([]string, *reuseFacts, bool, error) {
	named, ok, err := excludedReads(cfg, ix)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	changed, ok, err := refreshOnReads(cfg, ix)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	keyed, reuse, ok, err := reuseReads(opts, ix, scope)
	if err != nil || !ok {
		return nil, nil, false, err
	}
	return slices.Concat(named, changed, keyed), reuse, true, nil
}

// countEnrich counts e's enrichments (every one, and those at least as old
// as agesAsked) and its copies, whose IDs it returns.
func countEnrich(cfg *config.Config, e *config.Enrich, now time.Time, ix state.EnrichIndex) (*enrichCounts, []string, error) {
	copied, err := ix.CopiedBy(e.Address)
	if err != nil {
		return nil, nil, err
	}
	c := &enrichCounts{copies: len(copied), aged: map[time.Duration]int{}}
	if c.owned, err = ix.CountEnrichedBefore(e.Address, time.Time{}); err != nil {
		return nil, nil, err
	}
	for _, d := range agesAsked(cfg, e) {
		if c.aged[d], err = ix.CountEnrichedBefore(e.Address, now.Add(-d)); err != nil {
			return nil, nil, err
		}
	}
	return c, copied, nil
}

// enrichReads are the people who may decide the plan of e besides persons
// (ReadsOf's): read whole, its copies, the people of an enrichment of an
// unknown outcome, those who left the network or have no page name; in
// sketch (sketch: EnrichFacts.sketch), the people of its stale
// enrichments and of imported e-mails (importGives).
func enrichReads(e *config.Enrich, persons, copied []string, records *state.State, now time.Time, ix state.EnrichIndex, sketch func(by string, before time.Time) error) (ids []string, err error) {
	ids = slices.Concat(persons, copied, slices.Collect(maps.Keys(records.UnknownEnrichments)))
	for _, ask := range []func() ([]string, error){ix.Left, ix.Pageless} {
		found, err := ask()
		if err != nil {
			return nil, err
		}
		ids = append(ids, found...)
	}
	if e.Refresh > 0 {
		if err := sketch(e.Address, now.Add(-e.Refresh)); err != nil {
			return nil, err
		}
	}
	enrichers, err := ix.Enrichers()
	if err != nil {
		return nil, err
	}
	for _, by := range enrichers {
		if state.IsImport(by) {
			if err := sketch(by, endOfTime); err != nil {
				return nil, err
			}
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}

// endOfTime is after every enrichment's time.
var endOfTime = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// enrichAlone returns the one enrich block the plan of cfg reads every
// person for, and what ReadsOf names besides, when EnrichReadsOf can
// answer that block (see there).
func enrichAlone(cfg *config.Config, records *state.State, opts Options) (*config.Enrich, Reads, bool) {
	blocks, r, ok := enrichSelected(cfg, records, opts, func(blocks []*config.Enrich) bool {
		return len(blocks) == 1 && blocks[0].Where == nil
	})
	if !ok {
		return nil, Reads{}, false
	}
	return blocks[0], r, true
}

// enrichSelected returns the enrich blocks the plan of cfg selects, when
// want takes them, and what ReadsOf names besides: ok is false when the
// rest of the plan reads every person.
func enrichSelected(cfg *config.Config, records *state.State, opts Options, want func([]*config.Enrich) bool) ([]*config.Enrich, Reads, bool) {
	if records == nil || opts.Reuse != nil && opts.ReuseHeld == nil || opts.Now.IsZero() {
		return nil, Reads{}, false
	}
	b := &builder{cfg: cfg, st: records, opts: opts}
	b.selectTargets()
	b.selectReplace()
	if b.diags.HasErrors() {
		return nil, Reads{}, false
	}
	var blocks []*config.Enrich
	for _, x := range cfg.Enriches {
		if b.selected(x.Address) {
			blocks = append(blocks, x)
		}
	}
	if !want(blocks) {
		return nil, Reads{}, false
	}
	// Without the enrich blocks, the plan must read no person in bulk.
	rest := *cfg
	rest.Enriches = nil
	nb := *b
	nb.cfg = &rest
	if nb.readsEveryone() {
		return nil, Reads{}, false
	}
	r := b.partReads(records)
	if r.People {
		return nil, Reads{}, false
	}
	r.readCounted() // an enrich block's sources are read by ID
	// A track or an import planned with the blocks (one or several, a
	// where, other workspaces to copy from): their plans and the blocks'
	// meet (enrich_meets.go).
	if len(r.Tracks)+len(r.Imports) > 0 {
		b.meetImports(&r)
	}
	r.Sketched = b.sketchesEnriched(r)
	r.Pageless = r.Sketched && !b.readsProfiles()
	return blocks, r, true
}

// agesAsked are the ages ownedCapCounted counts e's enrichments by: its
// refresh and the shortest refresh of the other blocks, the shorter of the
// two when e's is set.
func agesAsked(cfg *config.Config, e *config.Enrich) []time.Duration {
	other := otherRefresh(cfg, e)
	var out []time.Duration
	if other > 0 {
		out = append(out, other)
	}
	if e.Refresh > 0 {
		out = append(out, e.Refresh)
		if other > 0 {
			out = append(out, min(e.Refresh, other))
		}
	}
	return out
}

// otherRefresh is the shortest refresh of the enrich blocks of cfg but e
// (0: none has one), as ownedCap takes it.
func otherRefresh(cfg *config.Config, e *config.Enrich) time.Duration {
	other := time.Duration(0)
	for _, o := range cfg.Enriches {
		if o != e && o.Refresh > 0 && (other == 0 || o.Refresh < other) {
			other = o.Refresh
		}
	}
	return other
}

// NeedsEveryone reports whether the plan Build made with f (Options.Enrich)
// over a state read in part found that it needs every person: the plan is
// to be built again over the whole state, without f.
func (f *EnrichFacts) NeedsEveryone() bool { return f != nil && f.needsEveryone }

// Recount returns, when the plan Build made with f needs everyone only
// because the places walk cannot decide it (nothing to enrich: the text
// counts every member; or the people to enrich past the places are too
// many to count), the facts to build it again with over the same state:
// the census of every enrichment (collectCensus). nil when Build is not
// to be run again so: the plan needs everyone, or f is a census already.
func (f *EnrichFacts) Recount() *EnrichFacts {
	if f == nil || !f.needsEveryone || f.err != nil || f.census {
		return nil
	}
	if _, ok := f.store.(state.EnrichmentLister); !ok {
		return nil
	}
	if f.many {
		return f.recountMany()
	}
	return &EnrichFacts{blocks: f.blocks, sketches: f.sketches, packed: f.packed, store: f.store, census: true, reuse: f.reuse, moved: f.moved}
}

// Err is why the store could not say who takes the places the limit
// leaves (placesWalk): the plan Build made with f is not to be used.
func (f *EnrichFacts) Err() error {
	if f == nil {
		return nil
	}
	return f.err
}

// fail records the store's error: the plan needs everyone, and Err says
// why.
func (f *EnrichFacts) fail(err error) {
	if f.err == nil {
		f.err = err
	}
	f.needsEveryone = true
}

// counted returns the store's counts of block addr, nil when the plan
// reads every person; a block without them makes the plan need everyone.
// The people the plan removes first are not counted (lessGone).
func (v *env) counted(addr string) *enrichCounts {
	if v.facts == nil {
		return nil
	}
	c := v.facts.blocks[addr]
	if c == nil {
		v.missed = true
		return &enrichCounts{}
	}
	return v.lessGone(addr, c)
}

// ownedCapCounted is ownedCap from the store's counts: e's enrichments old
// enough for e's refresh or another block's, or, with todo, those in todo
// and those old enough for another block's refresh. e's people in todo
// are among the people read (stale for e). Those whose enrichment an
// import of this plan replaces (env.replacedSet, read whole: meetImports)
// are not counted, as ownedCapRead leaves them out.
func (b *builder) ownedCapCounted(e *config.Enrich, c *enrichCounts, todo map[string]bool) int {
	other := otherRefresh(b.cfg, e)
	// aged are the enrichments of e at least d old but those replaced.
	aged := func(d time.Duration) int {
		n := c.aged[d]
		for o := range b.v.ownedList(e.Address).all {
			if b.v.replacedSet[o.p] && b.now.Sub(o.at) >= d {
				n--
			}
		}
		return n
	}
	if todo == nil {
		switch {
		case e.Refresh > 0 && other > 0:
			return aged(min(e.Refresh, other))
		case e.Refresh > 0:
			return aged(e.Refresh)
		case other > 0:
			return aged(other)
		}
		return 0
	}
	n, oldIn := 0, 0
	in := func(id string, at time.Time) {
		if todo[id] {
			n++
			if other > 0 && b.now.Sub(at) >= other {
				oldIn++
			}
		}
	}
	for o := range b.v.ownedList(e.Address).all {
		if !b.v.replacedSet[o.p] {
			in(o.p.ID, o.at)
		}
	}
	// The census sketches are e's too, never replaced (packSketches).
	sk := b.v.facts.packed
	for i := range sk.Len() {
		if sk.By(i) == e.Address {
			in(sk.ID(i), sk.EnrichedAt(i))
		}
	}
	if other > 0 {
		n += aged(other) - oldIn
	}
	return n
}

// collectRead is collect over a state read in part (EnrichReadsOf): the
// people read are counted as collectEach counts them, the others (plain
// people: fresh, or to enrich when a place is free) only as members, each
// once, but for those who take the places the limit leaves (placesWalk).
// Once its places are taken, the people not read take none and change
// nothing else the plan says (checkRead).
func (v *env) collectRead(e *config.Enrich, sources []source, where bool) (blockPeople, error) {
	v.reuseUnread(e)
	if v.facts.censused(e.Address) {
		return v.collectCensus(e, sources, where)
	}
	v.readGC(sources)
	var bp blockPeople
	seen := map[*state.Person]struct{}{}
	seenSketch := map[int32]bool{} // a census sketch is a new Person each time met
	var gone goneMet               // the IDs of people the plan removes first
	walk := v.walkPlaces(e, sources)
	for i, src := range sources {
		for j, id := range src.ids.All() {
			p := v.st.People[id]
			switch s := v.unreadSketchAt(p, id); {
			case v.skipGone(p, id, &gone):
				continue
			case s >= 0:
				if !seenSketch[s] {
					seenSketch[s] = true
					n := len(bp.todo)
					p, err := v.countSketch(&bp, e, s, src.addr, where)
					if err != nil {
						return bp, err
					}
					if len(bp.todo) > n {
						walk.took(p, i, j)
					}
				}
				continue
			case p == nil:
				if p = v.metUnread(e, walk, sources, i, j, id, &bp); p == nil {
					continue
				}
			}
			if _, dup := seen[p]; dup {
				continue
			}
			seen[p] = struct{}{}
			n := len(bp.todo)
			if err := v.count(&bp, e, v.look(e, p), src.addr, where); err != nil {
				return bp, err
			}
			if len(bp.todo) > n {
				walk.took(p, i, j)
			}
		}
	}
	bp.members = distinctIDs(sources) - gone.len()
	if v.keepMet {
		bp.sources = sources
	}
	if len(e.RefreshOn) > 0 {
		v.countUnreadOn(&bp, e, sources)
	}
	return bp, nil
}

// checkRead tells Build over a state read in part whether the plan of e
// is the one the whole state gives (else the plan needs everyone): the
// limit leaves no place, or the store said who takes those it leaves
// (placesWalk), so that the people not read take none (certain holds only
// people read), something is to be enriched (an up-to-date block's text
// counts people not read), and the bound is the limit's (the people not
// read only add to the sum it is the minimum of).
func (b *builder) checkRead(e *config.Enrich, bp blockPeople, bound int, changing changing, unknown, flips int, bounded bool) {
	if b.v.facts == nil {
		return
	}
	if b.v.facts.censused(e.Address) {
		// Every member is known (collectCensus).
		if b.v.missed {
			b.v.facts.needsEveryone = true
		}
		return
	}
	w := b.v.facts.walks[e.Address]
	ok := (e.Limit-b.v.used(e) <= 0 || w != nil && w.leaves) && bound > 0
	if ok && bounded && !bp.unreadAll {
		sum := len(bp.todo) + bp.unread + flips + unknown + changing.len()
		ok = sum >= b.limitBound(e, bp, changing, unknown == 0 && flips == 0)
	}
	if !ok || b.v.missed {
		b.v.facts.needsEveryone = true
		b.v.facts.undecide(e.Address)
	}
}

// countUnread counts, over a state read in part, the people not read whom
// e would enrich once its places are taken (bp.unread), as far as its
// bound needs them: so many that the people to enrich add up to the
// limit's bound, or every one (bp.unreadAll).
func (b *builder) countUnread(e *config.Enrich, bp *blockPeople, changing changing, unknown, flips int) {
	if b.v.facts == nil || b.v.facts.walks[e.Address] == nil || e.Limit <= 0 {
		return
	}
	sum := len(bp.todo) + flips + unknown + changing.len()
	need := b.limitBound(e, *bp, changing, unknown == 0 && flips == 0) - sum
	if need <= 0 {
		return
	}
	// A copy past the places is not to enrich: those not read are told
	// apart from the people held elsewhere only when those are known
	// (the walk then reads them: heldToEnrich).
	if known := b.v.findHeld(e); known {
		bp.unread, bp.unreadAll = b.v.facts.walks[e.Address].count(need)
	}
}

// idHash makes the hash distinctIDs counts by (a variable for tests).
var idHash = func() func(string) uint32 {
	seed := maphash.MakeSeed()
	return func(id string) uint32 { return uint32(maphash.String(seed, id)) }
}
