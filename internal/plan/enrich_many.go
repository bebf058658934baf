package plan

import (
	"fmt"
	"iter"
	"slices"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// A plan of several enrich blocks of the common kind (enrichMany) reads
// what a plan of each reads (enrichReads), and each block walks its own
// places (placesWalk). The walks read whole no person twice (readWhole):
// a person several blocks meet is one person, claimed once
// (claimRounds). Each walk reads, past the places its limit leaves,
// extra people: those other blocks may claim first, whom its block then
// skips. After the claims, claimsRead checks that no block claimed past
// the people its walk read with a place still free; if one did, the
// blocks are collected again with more extra people (enrichClaims),
// and read whole on only while the people read whole stay at most half
// of the state (readsMost): the plan then needs everyone. The bound
// over all blocks counts the people not read whom the walks counted
// (unionBound). A block the walk cannot decide (no limit, a safety cap,
// nothing to enrich) or with a where is planned from a census of its own
// (censusOf, recountMany); one that can take no place only counts its
// people to enrich there (countOnly). With exclude blocks, every person
// they may name is read whole (excludedReads), as for one block: a person
// not read is never excluded. With refresh_on, every person whose history
// holds a change is read whole (refreshOnReads); the bound over all
// blocks counts each enriched person not read whom a search may show
// changed once (enrichUnion.unreadRest).

// enrichMany returns the enrich blocks the plan of cfg reads every person
// for, and what ReadsOf names besides, when EnrichReadsOf can answer them
// together: two or more blocks selected, or one with a where, and
// otherwise as enrichAlone asks.
func enrichMany(cfg *config.Config, records *state.State, opts Options) ([]*config.Enrich, Reads, bool) {
	return enrichSelected(cfg, records, opts, func(blocks []*config.Enrich) bool {
		return len(blocks) > 1 || len(blocks) == 1 && blocks[0].Where != nil
	})
}

// enrichReadsMany is EnrichReadsOf for several blocks (enrichMany): the
// store's counts of each, and the people of each block's plan. A block
// without a limit, with a where, or whose limit leaves more than
// maxPlacesRead places is planned from the
// census (collectCensus, a census of its own), if the store lists the
// enrichments (else ok is false); the others walk their places.
func enrichReadsMany(cfg *config.Config, records *state.State, opts Options, ix EnrichStore) (Reads, *EnrichFacts, bool, error) {
	blocks, base, ok := enrichMany(cfg, records, opts)
	if !ok {
		return Reads{}, nil, false, nil
	}
	f := &EnrichFacts{blocks: map[string]*enrichCounts{}, store: ix, many: true,
		whole: map[string]*state.Person{}, extra: map[string]int{}, packs: packSketches(cfg, opts, ix)}
	places := make([]int, len(blocks))
	var copies []string
	for i, e := range blocks {
		counts, copied, err := countEnrich(cfg, e, opts.Now, ix)
		if err != nil {
			return Reads{}, nil, false, err
		}
		held := counts.owned + counts.copies + records.ErasedEnrichments[e.Address] + len(records.UnknownBy(e.Address))
		if e.Limit <= 0 || e.Limit-held > maxPlacesRead || e.Where != nil {
			// A where is evaluated on every person to enrich, in order:
			// the census reads them all whole.
			// No limit, or a safety cap: every candidate is to enrich, the
			// block is planned from the census.
			if _, lists := ix.(state.EnrichmentLister); !lists {
				return Reads{}, nil, false, nil
			}
			if f.censusOf == nil {
				f.censusOf = map[string]bool{}
			}
			f.censusOf[e.Address] = true
		}
		places[i] = max(e.Limit-held, 0)
		f.blocks[e.Address] = counts
		copies = append(copies, copied...)
	}
	// The first block's reads include what every block's plan reads (the
	// people who left, have no page name, an unknown outcome, an imported
	// e-mail); the others add their copies and stale enrichments.
	// Every person an exclude block may name is read whole: a person not
	// read is never excluded (excludedReads); and so on (namedReads).
	named, reuse, ok, err := namedReads(cfg, opts, ix, reuseScope{blocks: blocks, now: opts.Now})
	if err != nil || !ok {
		return Reads{}, nil, false, err
	}
	f.reuse = reuse
	if base.Persons, err = enrichReads(blocks[0], append(base.Persons, named...), copies, records, opts.Now, ix, f.sketch); err != nil {
		return Reads{}, nil, false, err
	}
	for i, e := range blocks {
		// The blocks before it claim first: up to their places of its
		// people (a census block's claims are counted once made: claimsRead).
		for k, p := range places[:i] {
			if !f.censusOf[blocks[k].Address] {
				f.extra[e.Address] = min(f.extra[e.Address]+p, maxPlacesRead)
			}
		}
		if i == 0 || e.Refresh <= 0 {
			continue
		}
		if err := f.sketch(e.Address, opts.Now.Add(-e.Refresh)); err != nil {
			return Reads{}, nil, false, err
		}
	}
	if base.Persons, err = f.whereReads(base.Persons, blocks, ix, profilePages(cfg, records, opts)); err != nil {
		return Reads{}, nil, false, err
	}
	if err := f.readPacked(); err != nil {
		return Reads{}, nil, false, err
	}
	if base.Persons, err = f.heldSketchReads(opts.Reuse, base.Persons); err != nil {
		return Reads{}, nil, false, err
	}
	return base, f, true, nil
}

// whereReads adds to persons, sorted, each once, the people of f's
// sketches the wheres of blocks need whole: none when their sketches are
// given the wheres' fields, but those whose page a profile block reads
// (whereSketches, pages); else every one.
func (f *EnrichFacts) whereReads(persons []string, blocks []*config.Enrich, ix EnrichStore, pages map[string]bool) ([]string, error) {
	whole, sketched, err := f.whereSketches(blocks, ix, pages)
	if err != nil {
		return nil, err
	}
	if wheres(blocks) && !sketched {
		// A where is evaluated on the lead of each person to enrich, and
		// the people read in sketch may be: they are read whole.
		if err := f.unpack(); err != nil {
			return nil, err
		}
		for _, p := range f.sketches {
			whole = append(whole, p.ID)
		}
		f.sketches = nil
	}
	if len(whole) == 0 {
		return persons, nil
	}
	persons = append(persons, whole...)
	slices.Sort(persons)
	return slices.Compact(persons), nil
}

// wheres reports whether a block of blocks has a where.
func wheres(blocks []*config.Enrich) bool {
	return slices.ContainsFunc(blocks, func(e *config.Enrich) bool { return e.Where != nil })
}

// readWhole reads the people of ids whole, by ID; with several blocks,
// each person once for all their walks. Those reads draw from one
// budget (budgeted), whatever asks for them: the walks' places, the
// claims read on, the people held elsewhere. The census pages of a block
// with a where (candidatePages) are read apart, past it. A read that
// would make the people read whole most of the state (readsMost) reads
// none: the plan needs everyone instead, and the walks stop
// (placesWalk.person).
func (f *EnrichFacts) readWhole(ids []string) (map[string]*state.Person, error) {
	if !f.many {
		return f.people(ids)
	}
	out := make(map[string]*state.Person, len(ids))
	var ask []string
	for _, id := range ids {
		if p, ok := f.whole[id]; ok {
			out[id] = p
		} else {
			ask = append(ask, id)
		}
	}
	if len(ask) > 0 && f.budgeted() && f.readsMost(len(f.whole)+len(ask)) {
		f.needsEveryone = true
		return out, nil
	}
	read, err := f.people(ask)
	if err != nil {
		return nil, err
	}
	for _, id := range ask {
		f.whole[id] = read[id]
		out[id] = read[id]
	}
	return out, nil
}

// enrichClaims gathers the people of the selected enrich blocks
// (enrichPeople) and the people each enriches for sure (claimRounds).
// Over a state read in part with several blocks, it collects them again
// with more extra people while a block claims past its walk
// (claimsRead): each walk reads on past twice its extra people, and the
// claims. The collections after the first read by ID only while the
// people read whole stay at most half of the state (readsMost, checked
// before each read: readWhole): past that, the plan needs everyone. The
// walks end once they read every person of their sources, so the
// collections do too.
// Each collection reports anew a where that cannot be evaluated.
func (b *builder) enrichClaims() (blocks []*config.Enrich, people []blockPeople, certains [][]member, ok bool) {
	diags := len(b.diags)
	for {
		b.diags = b.diags[:diags]
		blocks, people, ok = b.enrichPeople()
		if !ok {
			return nil, nil, nil, false
		}
		todos := make([][]member, len(blocks))
		for i := range blocks {
			todos[i] = people[i].todo
		}
		certains = b.v.claimRounds(blocks, todos)
		f := b.v.facts
		if f != nil {
			f.collections++
		}
		if f == nil || f.store == nil || f.census || f.needsEveryone {
			return blocks, people, certains, true
		}
		widen := b.claimsRead(blocks, people, certains)
		if len(widen) == 0 {
			return blocks, people, certains, true
		}
		if f.extra == nil || f.readsMost(len(f.whole)) {
			f.needsEveryone = true
			return blocks, people, certains, true
		}
		f.widen(widen)
	}
}

// budgeted reports whether the reads by ID of several blocks count
// against the state's people (readsMost): once a collection of the
// blocks has run (enrichClaims), or once people held elsewhere were read
// (readAsked counts them first). The first collection's walks read their
// places and extra people unchecked until then: every such plan reads
// them, and the store is not asked to count its people for them.
func (f *EnrichFacts) budgeted() bool {
	return f.collections > 0 || f.reuse != nil && f.reuse.read > 0
}

// widen gives the walks of the blocks of more (by address) that many
// extra people more, past twice those they had.
func (f *EnrichFacts) widen(more map[string]int) {
	for addr, n := range more {
		f.extra[addr] = 2*f.extra[addr] + n
	}
}

// readsMost reports whether n people read whole by ID are most of the
// state: more than half of its people (the store's count, asked once).
// A person read by ID costs about twice one of a read of everyone, so
// that past that share the plan reads every person instead. A store
// that cannot count fails the plan (fail).
func (f *EnrichFacts) readsMost(n int) bool {
	size, ok := f.statePeople()
	return !ok || 2*n > size
}

// statePeople is how many people the store holds, asked once: the one
// count the claims (readsMost) and the people held elsewhere
// (heldReadMost) weigh their reads by ID against. ok is false when the
// store cannot count: the plan fails (fail).
func (f *EnrichFacts) statePeople() (size int, ok bool) {
	if !f.sizeKnown {
		size, err := f.store.CountPeople()
		if err != nil {
			f.fail(fmt.Errorf("counting the state's people: %w", err))
			return 0, false
		}
		f.stateSize, f.sizeKnown = size, true
	}
	return f.stateSize, true
}

// claimsRead returns the blocks (with how many extra people their walks
// should read) whose claims the people read do not decide: their walk
// stopped before the people not read were all asked about, and they
// claimed a person who takes a place after the last the walk read, or
// have a place left once every block claimed (the people the walk did
// not read would have taken it). Empty when every block's claims are the
// whole state's.
func (b *builder) claimsRead(blocks []*config.Enrich, people []blockPeople, certains [][]member) map[string]int {
	claims := 0
	for _, c := range certains {
		claims += len(c)
	}
	var widen map[string]int
	for i, e := range blocks {
		w := b.v.facts.walks[e.Address]
		if w == nil || w.places > 0 {
			continue // every person not read was asked about
		}
		cut := -1
		for k, m := range people[i].todo {
			if w.last != nil && b.v.memberID(m) == w.last.ID {
				cut = k
			}
		}
		after := map[string]bool{} // by ID, as the claims
		for _, m := range people[i].todo[cut+1:] {
			after[b.v.memberID(m)] = true
		}
		held, past := 0, false
		for _, m := range certains[i] {
			if b.v.takesPlace(e, m) {
				held++
				past = past || after[b.v.memberID(m)]
			}
		}
		freed := 0
		for k, c := range certains {
			for _, m := range c {
				if k != i && b.v.holdsPlace(e, m) {
					freed++
				}
			}
		}
		if (w.last != nil && cut < 0) || past || e.Limit-b.v.used(e)+freed-held > 0 {
			if widen == nil {
				widen = map[string]int{}
			}
			widen[e.Address] = freed + claims + 16
		}
	}
	return widen
}

// unionBound is the bound over all blocks (enrichUnion.bound): over a
// state read in part with several blocks, the people not read whom the
// walks counted to enrich count too, each once. Unless every walk asked
// about every person not read, or the blocks' bounds are less than the
// people so found, the plan needs everyone.
func (b *builder) unionBound(u *enrichUnion, blocks []*config.Enrich, people []blockPeople) int {
	f := b.v.facts
	if f == nil || f.store == nil || f.census || len(blocks) < 2 {
		return u.bound(b)
	}
	all := make([]bool, len(blocks))
	for i, e := range blocks {
		w := f.walks[e.Address]
		all[i] = f.censusOf[e.Address] || w != nil && (w.places > 0 || people[i].unreadAll)
	}
	bound := b.unionRead(u, blocks)
	for i, e := range blocks {
		if bound >= u.sumMax {
			return bound
		}
		if w := f.walks[e.Address]; w != nil && !all[i] {
			// Count every person not read the block would enrich.
			_, all[i] = w.count(maxCounted)
		}
	}
	bound = b.unionRead(u, blocks)
	if bound < u.sumMax && slices.Contains(all, false) {
		f.needsEveryone = true
	}
	return bound
}

// unionRead is enrichUnion.bound with the people not read whom the walks
// of blocks (or their census: countOnly) counted to enrich among the
// people to enrich, each once (enrichUnion.counted): a person failing
// another block's where is then no flip of its.
func (b *builder) unionRead(u *enrichUnion, blocks []*config.Enrich) int {
	lists := make([]iter.Seq[string], len(blocks))
	n := 0
	for i, e := range blocks {
		if w := b.v.facts.walks[e.Address]; w != nil {
			lists[i], n = slices.Values(w.counted), n+len(w.counted)
			continue
		}
		ids := b.v.facts.counted[e.Address]
		lists[i], n = ids.all, n+ids.len()
	}
	counted := make([]string, 0, n)
	for _, ids := range lists {
		for id := range ids {
			if !u.todo[id] {
				counted = append(counted, id)
			}
		}
	}
	slices.Sort(counted)
	u.counted = slices.Compact(counted)
	return u.bound(b)
}

// metCount is how many distinct people the blocks of people meet: over a
// state read in part, the distinct IDs of their sources (a person is one
// ID in a state, as collectRead counts its members) but those of the
// people the plan removes first (goneIn).
func (v *env) metCount(people []blockPeople) int {
	var sources []source
	met := map[*state.Person]struct{}{}
	for _, bp := range people {
		sources = append(sources, bp.sources...)
		for _, p := range bp.met {
			met[p] = struct{}{}
		}
	}
	if sources != nil {
		return distinctIDs(sources) - v.goneIn(sources)
	}
	return len(met)
}

// censused reports whether block addr is planned from the census.
func (f *EnrichFacts) censused(addr string) bool { return f.census || f.censusOf[addr] }

// undecide records that the people read do not decide block addr's plan.
func (f *EnrichFacts) undecide(addr string) {
	if f.many {
		if f.undecided == nil {
			f.undecided = map[string]bool{}
		}
		f.undecided[addr] = true
	}
}

// recountMany is Recount for several blocks: the blocks the people read
// did not decide are planned from the census too, the others walk their
// places again; when none was undecided (the claims or the bound over all
// needed everyone), every block is. nil when a block planned from the
// census was undecided, or every block was planned so.
func (f *EnrichFacts) recountMany() *EnrichFacts {
	census := map[string]bool{}
	for a := range f.censusOf {
		census[a] = true
	}
	for a := range f.undecided {
		if census[a] {
			return nil
		}
		census[a] = true
	}
	if len(f.undecided) == 0 {
		for a := range f.blocks {
			census[a] = true
		}
	}
	if len(census) == len(f.censusOf) {
		return nil
	}
	return &EnrichFacts{blocks: f.blocks, sketches: f.sketches, packed: f.packed, leadSketches: f.leadSketches, store: f.store, many: true, moved: f.moved,
		whole: map[string]*state.Person{}, extra: f.extra, censusOf: census, reuse: f.reuse}
}

// countOnly reports whether block e, alone or among several, planned from
// the census, can claim no one who takes a place: its limit leaves none, and no other
// block can give one back by enriching one of its people again (none of
// its enrichments is as old as another block's refresh; it copied none,
// has none of an unknown outcome, and no block has refresh_on). Its people to enrich are then
// counted, not read whole (countCandidates): they change only counts.
// With a where, each is read whole to evaluate it, a page at a time, and
// released once counted (candidatePages). Alone, such a block read them
// whole before, and its apply read them again (WalkedIDs).
func (v *env) countOnly(e *config.Enrich) bool {
	f := v.facts
	c := f.blocks[e.Address]
	if c == nil || e.Limit <= 0 || e.Limit-v.used(e) > 0 || c.copies > 0 || len(v.st.UnknownBy(e.Address)) > 0 || anyRefreshOn(v.cfg) {
		return false
	}
	other := otherRefresh(v.cfg, e)
	n, ok := c.aged[other]
	return other == 0 || ok && n == 0
}

// countCandidates keeps those of todo (the census' people to enrich of
// block e, not read) that name a person, as the people e would enrich.
// The store names those that do not (absentAmong), nearly always none:
// todo is then kept as it is. Those are no members either (nobody), as
// the whole state's plan does not meet them.
func (f *EnrichFacts) countCandidates(e *config.Enrich, todo *placedIDs) error {
	absent, err := absentAmong(f.store, todo)
	if err != nil {
		return err
	}
	if len(absent) == 0 {
		f.countedBy(e, todo)
		return nil
	}
	if f.nobody == nil {
		f.nobody = map[string]int{}
	}
	f.nobody[e.Address] = len(absent)
	found := &placedIDs{lists: todo.lists, starts: todo.starts}
	for i, k := range todo.ks {
		if !absent[todo.at(i)] {
			found.add(int(k))
		}
	}
	f.countedBy(e, found)
	return nil
}

// absentPage is how many IDs absentAmong asks the store about at once
// (a variable for tests).
var absentPage = 1 << 16

// absentAmong are the IDs of ids that name no person, asked of the store
// a page at a time: the IDs are not gathered in one slice first.
func absentAmong(s EnrichStore, ids *placedIDs) (map[string]bool, error) {
	out := map[string]bool{}
	page := make([]string, 0, min(ids.len(), absentPage))
	ask := func() error {
		absent, err := s.Absent(page)
		for _, id := range absent {
			out[id] = true
		}
		page = page[:0]
		return err
	}
	for id := range ids.all {
		page = append(page, id)
		if len(page) == absentPage {
			if err := ask(); err != nil {
				return nil, err
			}
		}
	}
	return out, ask()
}

// countedBy keeps ids as the people block e would enrich, counted.
func (f *EnrichFacts) countedBy(e *config.Enrich, ids *placedIDs) {
	if f.counted == nil {
		f.counted = map[string]*placedIDs{}
	}
	f.counted[e.Address] = ids
}
