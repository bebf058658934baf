package plan

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
)

// source is one source instance of an enrich block, with the IDs of the
// people it holds in state (sourcePeople).
type source struct {
	addr string
	ids  state.IDList
}

// collect gathers the people of e's sources, skipping the sources for which
// skipSource is true (searches that will run, in a plan). With where false,
// the where expression is not evaluated and every person needing enrichment
// is in todo.
//
// A person is counted where the sources first meet them: sources in from
// order, each source's people in order (collectEach says it plainly). A
// large state holds hundreds of thousands of them, so collect looks them
// up on every core first (lookUp) and then takes them in order, telling
// apart the people only one source can meet (their found_by names that
// source alone) from those several may. When the state does not bear that
// out (an ID that is not a key of people, a person met by a source their
// found_by does not name), collectEach counts them instead.
func (v *env) collect(e *config.Enrich, skipSource func(string) bool, where bool) (blockPeople, error) {
	var sources []source
	n := 0
	for _, addr := range v.cfg.Resolve(e.From) {
		if skipSource != nil && skipSource(addr) {
			continue
		}
		ids := v.sourcePeople(addr)
		sources = append(sources, source{addr, ids})
		n += ids.Len()
	}
	var bp blockPeople
	var err error
	var looks [][]look
	if v.facts == nil {
		looks = v.lookUp(e, sources, n)
	}
	switch {
	case v.facts != nil:
		v.facts.pageRefs(v.st, e, sources)
		bp, err = v.collectRead(e, sources, where)
	case looks != nil:
		bp, err = v.collectLooked(e, sources, looks, n, where)
	default:
		bp, err = v.collectEach(e, sources, n, where)
	}
	if err == nil && len(e.RefreshOn) > 0 {
		err = v.collectFormer(&bp, e, sources, looks, where)
	}
	if err == nil {
		v.placeCopies(e, &bp)
	}
	return bp, err
}

// collectFormer adds to bp, after the people of e's sources, the people
// e enriched whom none of those sources holds any more (often because
// they changed jobs and dropped out of a search; a track keeps watching
// them): their e-mail is e's, so refresh_on enriches them again when a
// field of it changed after their enrichment, as it would in a source.
// Only refresh_on does: a refresh by age, or a source that is gone, does
// not make e enrich someone it no longer holds. They take no new place
// under e's limit (e enriched them), and go by ID, after the sources'
// people. Those whose change no call has shown yet are bp.formerFresh
// (a read of this run may show it); those who left the network and
// changed are failing (a read of this run may find them back).
//
// looks, when lookUp found the sources' people, saves looking them up
// again by ID.
func (v *env) collectFormer(bp *blockPeople, e *config.Enrich, sources []source, looks [][]look, where bool) error {
	owned := v.ownedList(e.Address)
	if owned.n == 0 {
		return nil
	}
	former := make(map[*state.Person]bool, owned.n)
	for o := range owned.all {
		if !v.gone[o.p] && !v.replacedSet[o.p] {
			former[o.p] = true
		}
	}
	if looks != nil {
		// lookUp left out only people who are gone, or met again in one
		// source: the first meeting is there.
		for _, ls := range looks {
			for _, l := range ls {
				delete(former, l.p)
			}
		}
	} else {
		for _, src := range sources {
			for _, id := range src.ids.All() {
				delete(former, v.person(id))
			}
		}
	}
	if len(former) == 0 {
		return nil
	}
	people := slices.SortedFunc(maps.Keys(former), func(a, b *state.Person) int { return strings.Compare(a.ID, b.ID) })
	for _, p := range people {
		if p.Enrichment == nil || p.Enrichment.By != e.Address || v.importGives(e, p) {
			continue
		}
		changed := changedSinceEnriched(e, p)
		page := p.Lead.PageName != ""
		switch {
		case changed && p.Status == state.StatusLeft:
			if page {
				bp.failing = append(bp.failing, p)
			}
			continue
		case !changed:
			bp.formerFresh = append(bp.formerFresh, p)
			continue
		}
		n := len(bp.todo)
		if err := v.candidate(bp, e, wholeMember(p), page, "enriched by it, no longer in its sources", where); err != nil {
			return err
		}
		if len(bp.todo) > n {
			bp.former++
		}
	}
	return nil
}

// placeCopies gives the people whose enrichment e copies from another
// workspace places under e's limit, in from order, before the people it
// pays for (a copy is free): at most the places left, the others are
// neither copied nor enriched. The places the copies take are counted in
// used until they are in the state (they then hold them as
// Enrichment.CopiedBy).
func (v *env) placeCopies(e *config.Enrich, bp *blockPeople) {
	if v.copies != nil {
		delete(v.copies, e.Address)
	}
	if e.Limit <= 0 || len(bp.reused) == 0 {
		return
	}
	places := max(e.Limit-v.used(e), 0)
	if len(bp.reused) > places {
		bp.enriched -= len(bp.reused) - places
		bp.reused = bp.reused[:places]
	}
	if v.copies == nil {
		v.copies = map[string]int{}
	}
	v.copies[e.Address] = len(bp.reused)
}

// collectEach gathers the people of sources one by one, as collect
// describes.
func (v *env) collectEach(e *config.Enrich, sources []source, n int, where bool) (blockPeople, error) {
	bp := blockPeople{todo: make([]member, 0, n)}
	// People are deduplicated by pointer: cheaper to hash than IDs.
	seen := make(map[*state.Person]struct{}, n)
	for _, src := range sources {
		for _, id := range src.ids.All() {
			p := v.person(id)
			if p == nil || v.gone[p] {
				continue
			}
			if _, dup := seen[p]; dup {
				continue
			}
			seen[p] = struct{}{}
			if err := v.count(&bp, e, v.look(e, p), src.addr, where); err != nil {
				return bp, err
			}
		}
	}
	return bp, nil
}

// look is what the block needs to know of one person met in a source.
type look struct {
	p *state.Person // nil: not counted here (gone, or met before in this source)
	// k is the index of p's census sketch, -1 when p is held whole
	// (member).
	k int32
	// shared: p's found_by names other sources too, which may meet p
	// again; otherwise only this source can.
	shared   bool
	needs    bool // needsEnrich
	enriched bool // holds an enrichment
	page     bool // has a page name
}

func (v *env) look(e *config.Enrich, p *state.Person) look {
	return look{p: p, k: -1, needs: v.needsEnrich(e, p), enriched: p.Enrichment != nil, page: p.Lead.PageName != ""}
}

// count takes a person the block meets for the first time (l) into bp;
// addr is the source that met them.
func (v *env) count(bp *blockPeople, e *config.Enrich, l look, addr string, where bool) error {
	p := l.p
	bp.members++
	if v.keepMet && l.k < 0 {
		// A census sketch is met over a state read in part, whose
		// members the sources count (metCount).
		bp.met = append(bp.met, p)
	}
	if v.importGives(e, p) {
		// Enriched at no credit: without the import, a credit; but an
		// exclude block that names them keeps them from enrichment and
		// from the exports anyway: they count as excluded (one count of
		// each person, as apply and the Summary sheet count them), and
		// their import saves nothing (nor does their exclusion: free).
		if x := v.importExcludedBy(p); x != nil {
			bp.excluded = append(bp.excluded, excludedPerson{p: p, by: x, free: true})
			return nil
		}
		bp.imported = append(bp.imported, p)
		bp.enriched++
		return nil
	}
	if !l.needs {
		if l.enriched {
			bp.enriched++
		}
		switch {
		case p.Status == state.StatusLeft && l.page && v.stale(e, p):
			// A read of this run may find them back.
			bp.failing = append(bp.failing, p)
		case l.enriched && len(e.RefreshOn) > 0: // only refresh_on reads them (mayChange)
			bp.fresh = append(bp.fresh, p)
		}
		return nil
	}
	return v.candidate(bp, e, member{p: p, k: l.k}, l.page, "found by "+addr, where)
}

// candidate takes m's person p, who needs an enrichment by e (met as from
// says), into bp: excluded, failing where (or without a page name: a
// search that runs may bring one), reused from another workspace, or to
// enrich (m, held).
func (v *env) candidate(bp *blockPeople, e *config.Enrich, m member, page bool, from string, where bool) error {
	p := m.p
	ok := page
	if ok {
		if x := v.excludedBy(p); x != nil {
			// Never enriched: an exclude block names them.
			bp.excluded = append(bp.excluded, excludedPerson{p: p, by: x})
			if v.onExcluded != nil {
				v.onExcluded(p)
			}
			return nil
		}
	}
	if ok && where && e.Where != nil {
		var err error
		ok, err = match(v.cfg, e, p.Lead)
		if v.sketchWhere(e, p, err) {
			return nil // the plan needs everyone
		}
		if err != nil {
			return fmt.Errorf("%s: where cannot be evaluated for %s (%s, %s): %w", e.Address, displayName(p), p.ID, from, err)
		}
	}
	if !ok {
		bp.failing = append(bp.failing, p)
		return nil
	}
	if r, found := v.reusable(e, p); found {
		bp.reused = append(bp.reused, reusedPerson{p, r})
		bp.enriched++
		return nil
	}
	bp.todo = append(bp.todo, m.held())
	return nil
}

// collectLooked gathers the people of sources from what lookUp found:
// in order, a person only their source can meet counted where lookUp
// first met them, the others where any source first meets them.
func (v *env) collectLooked(e *config.Enrich, sources []source, looks [][]look, n int, where bool) (blockPeople, error) {
	bp := blockPeople{todo: make([]member, 0, n)}
	seen := map[*state.Person]struct{}{} // the shared people met so far
	for i, src := range sources {
		for _, l := range looks[i] {
			if l.p == nil {
				continue
			}
			if l.shared {
				if _, dup := seen[l.p]; dup {
					continue
				}
				seen[l.p] = struct{}{}
			}
			if err := v.count(&bp, e, l, src.addr, where); err != nil {
				return bp, err
			}
		}
	}
	return bp, nil
}

// minLookUpParallel is the number of people from which lookUp looks on
// several cores (a variable for tests).
var minLookUpParallel = 20000

// lookUp looks up the people of every source, on several cores when there
// are many: looks[i][j] is the person of sources[i].ids[j]. It returns
// nil when collect's shortcut does not hold: an ID is not a key of
// people (a person re-keyed since, whom v.person finds), a source
// address comes twice, or a person is met by a source their found_by does
// not name.
func (v *env) lookUp(e *config.Enrich, sources []source, n int) [][]look {
	addrs := make(map[string]bool, len(sources))
	for _, src := range sources {
		if addrs[src.addr] {
			return nil
		}
		addrs[src.addr] = true
	}
	looks := make([][]look, len(sources))
	all := make([]look, n)
	for i, src := range sources {
		looks[i], all = all[:src.ids.Len():src.ids.Len()], all[src.ids.Len():]
	}
	workers := 1
	if n >= minLookUpParallel {
		workers = min(runtime.GOMAXPROCS(0), 8)
	}
	// Cut the sources into runs of about n/workers people, the last one
	// looked up here.
	// A worker's panic (a bug) is raised again here.
	var wg sync.WaitGroup
	ok := make([]bool, workers)
	panics := make([]error, workers)
	start, k, run := 0, 0, 0
	for i, src := range sources {
		run += src.ids.Len()
		if k < workers-1 && run >= n/workers {
			wg.Add(1)
			go func(k, from, to int) {
				defer wg.Done()
				defer recovered.Catch(&panics[k])
				ok[k] = v.lookSources(e, sources[from:to], looks[from:to])
			}(k, start, i+1)
			start, k, run = i+1, k+1, 0
		}
	}
	ok[k] = v.lookSources(e, sources[start:], looks[start:])
	wg.Wait()
	recovered.Raise(recovered.First(panics...))
	for _, o := range ok[:k+1] {
		if !o {
			return nil
		}
	}
	return looks
}

// lookSources fills looks for sources (see lookUp); false when the
// shortcut does not hold.
func (v *env) lookSources(e *config.Enrich, sources []source, looks [][]look) bool {
	here := map[*state.Person]struct{}{} // the people only this source meets, met so far
	for i, src := range sources {
		clear(here)
		for j, id := range src.ids.All() {
			p := v.st.People[id]
			switch {
			case p == nil && v.goneKept.has(id), v.gone[p]:
				continue
			case p == nil:
				return false
			}
			shared := len(p.FoundBy) != 1 || p.FoundBy[0] != src.addr
			if shared && !foundBy(p, src.addr) {
				return false
			}
			if !shared {
				if _, dup := here[p]; dup {
					continue
				}
				here[p] = struct{}{}
			}
			looks[i][j] = v.look(e, p)
			looks[i][j].shared = shared
		}
	}
	return true
}

// foundBy reports whether p's found_by names addr.
func foundBy(p *state.Person, addr string) bool {
	for _, a := range p.FoundBy {
		if a == addr {
			return true
		}
	}
	return false
}
