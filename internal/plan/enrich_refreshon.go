package plan

import (
	"errors"
	"slices"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// refresh_on over a state read in part (EnrichReadsOf): a block with
// refresh_on enriches again a person a field of it changed for since
// their enrichment (their history says so), also when its sources no
// longer hold them (collectFormer), and counts every enriched member a
// call of this run may show changed (bp.fresh). The plan then reads
// whole every person whose history holds a change and every person a
// profile block names (refreshOnReads), and is made from the census: a
// person not read changed nothing since their enrichment, is on the
// network, and no read of this run reads them (a track's people are
// read, as its plan reads them: enrich_meets.go). The
// census counts the enriched members not read (bp.freshUnread), and
// formerUnread the people the block enriched whom neither its sources
// hold nor the plan read; ownedCapOn bounds the limit's calls from the
// store's counts.

// changeLister is what refreshOnReads and formerUnread ask of a store
// (state.Base gives both).
type changeLister interface {
	// Changed are the IDs of the people whose history holds a change.
	Changed() ([]string, error)
	// Enriched are the IDs of the people holding an enrichment the block
	// at addr made or copied.
	Enriched(addr string) ([]string, error)
}

// anyRefreshOn reports whether a block of cfg has refresh_on.
func anyRefreshOn(cfg *config.Config) bool {
	return slices.ContainsFunc(cfg.Enriches, func(e *config.Enrich) bool { return len(e.RefreshOn) > 0 })
}

// refreshOnReads are the people a plan with refresh_on reads whole: every
// person whose history holds a change, and every person a profile block
// of the configuration may read in this run (profileReads), whom the
// read may show changed. ok is false when a block has refresh_on and the
// store lists no such people, or, with profile blocks, no values.
func refreshOnReads(cfg *config.Config, ix EnrichStore) (ids []string, ok bool, err error) {
	if !anyRefreshOn(cfg) {
		return nil, true, nil
	}
	cl, listed := ix.(changeLister)
	if !listed {
		return nil, false, nil
	}
	if ids, err = cl.Changed(); err != nil || len(cfg.Profiles) == 0 {
		return ids, err == nil, err
	}
	read, ok, err := profileReads(cfg, ix)
	return append(ids, read...), ok, err
}

// profileReads are the IDs of the people whose page name is one a profile
// block of cfg names, as the network compares them (api.PageKey, which a
// read of this run is keyed by: builder.reads), from one pass over the
// store's list of the people's values. ok is false when it lists none.
func profileReads(cfg *config.Config, ix EnrichStore) (ids []string, ok bool, err error) {
	vs, listed := ix.(valueStore)
	if b := baseOf(ix); !listed || b != nil && !b.ValuesListed() {
		return nil, false, nil
	}
	keys := map[string]bool{}
	for _, pr := range cfg.Profiles {
		if k := api.PageKey(pr.PageName); k != "" {
			keys[k] = true
		}
	}
	var buf []byte
	err = vs.PeopleValues(func(id, _, page, _ []byte) {
		if len(page) == 0 {
			return
		}
		var ok bool
		if buf, ok = asciiPageKey(buf[:0], page); ok {
			ok = keys[string(buf)]
		} else {
			ok = keys[api.PageKey(string(page))]
		}
		if ok {
			ids = append(ids, string(id))
		}
	})
	return ids, err == nil, err
}

// asciiPageKey appends api.PageKey of page to dst when page is ASCII
// with no space at either end: its letters in upper case (the least of
// each letter's case folds). ok is false for any other page.
func asciiPageKey(dst, page []byte) (key []byte, ok bool) {
	if page[0] <= ' ' || page[len(page)-1] <= ' ' {
		return dst, false
	}
	for _, c := range page {
		switch {
		case c >= 0x80:
			return dst, false
		case 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst, true
}

// formerUnread lists the people e made an enrichment of whom sources do
// not hold and the plan did not read (collectFormer meets those read):
// each is former and fresh (nothing changed since their enrichment).
func (v *env) formerUnread(e *config.Enrich, sources []source) ([]string, error) {
	if ids, ok := v.formerUnreadSketched(e); ok {
		return ids, nil
	}
	cl, ok := v.facts.store.(changeLister)
	if !ok {
		return nil, errNoChanges
	}
	all, err := cl.Enriched(e.Address)
	if err != nil {
		return nil, err
	}
	copied, err := v.facts.store.CopiedBy(e.Address)
	if err != nil {
		return nil, err
	}
	made := make(map[string]bool, len(all))
	for _, id := range all {
		if !v.known(id) && v.readInSketch(id) < 0 {
			made[id] = false
		}
	}
	for _, id := range copied {
		delete(made, id)
	}
	for _, src := range sources {
		for _, id := range src.ids.All() {
			if _, ok := made[id]; ok {
				made[id] = true
			}
		}
	}
	ids := make([]string, 0, len(made))
	for id, held := range made {
		if !held {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// errNoChanges: the store lists no enrichments by block.
var errNoChanges = errors.New("the store does not list the enrichments of a block")

// ownedCapOn is ownedCap from the store's counts when a block has
// refresh_on: the people read as ownedCap counts them, and the others
// (on the network, changed nothing since their enrichment, read by no
// read of this run: only a search that runs may show them changed) by
// their number and ages.
func (b *builder) ownedCapOn(e *config.Enrich, c *enrichCounts, todo map[string]bool, searching bool) int {
	other, otherOn := otherRefresh(b.cfg, e), refreshOnOthers(b.cfg, e)
	n, read := b.ownedCapRead(e, todo, searching, other, otherOn), 0
	readAged := map[time.Duration]int{}
	for o := range b.v.ownedList(e.Address).all {
		read++
		for d := range c.aged {
			if b.now.Sub(o.at) >= d {
				readAged[d]++
			}
		}
	}
	aged := func(d time.Duration) int { return c.aged[d] - readAged[d] }
	switch {
	case searching && (len(otherOn) > 0 || todo == nil && len(e.RefreshOn) > 0):
		n += c.owned - read
	case todo != nil:
		if other > 0 {
			n += aged(other)
		}
		n += b.sketchedAgain(e, other)
	case e.Refresh > 0 && other > 0:
		n += aged(min(e.Refresh, other)) + b.sketchedAgain(e, min(e.Refresh, other))
	case e.Refresh > 0:
		n += aged(e.Refresh) + b.sketchedAgain(e, e.Refresh)
	case other > 0:
		n += aged(other) + b.sketchedAgain(e, other)
	default:
		n += b.sketchedAgain(e, 0)
	}
	return n
}

// refreshOnOthers are the enrich blocks of cfg but e with refresh_on.
func refreshOnOthers(cfg *config.Config, e *config.Enrich) []*config.Enrich {
	var out []*config.Enrich
	for _, o := range cfg.Enriches {
		if o != e && len(o.RefreshOn) > 0 {
			out = append(out, o)
		}
	}
	return out
}

// ownedCapRead is ownedCap's count of the people read: other is the
// shortest refresh of the other blocks, otherOn those with refresh_on.
func (b *builder) ownedCapRead(e *config.Enrich, todo map[string]bool, searching bool, other time.Duration, otherOn []*config.Enrich) int {
	mayChange := func(p *state.Person) bool {
		by := b.changedBy(p)
		return by == byRead || searching && by == bySearch
	}
	n := 0
	for o := range b.v.ownedList(e.Address).all {
		if b.v.replacedSet[o.p] {
			continue
		}
		age := b.now.Sub(o.at)
		var again bool
		if todo != nil {
			again = todo[o.p.ID]
		} else {
			// Cheapest first: changedSinceEnriched reads the history.
			again = e.Refresh > 0 && age >= e.Refresh || len(e.RefreshOn) > 0 && (mayChange(o.p) || changedSinceEnriched(e, o.p))
		}
		freed := other > 0 && age >= other
		for _, x := range otherOn {
			if freed {
				break
			}
			freed = mayChange(o.p) || changedSinceEnriched(x, o.p)
		}
		if again || freed {
			n++
		}
	}
	return n
}

// countUnreadOn counts, over a state read in part whose places the walk
// took (collectRead), what the census counts with refresh_on: the
// enriched members not read (freshUnread, from the census of the
// enrichments, none of them read whole: nor held elsewhere read as met,
// metHeld) and, when asked, formerUnread.
func (v *env) countUnreadOn(bp *blockPeople, e *config.Enrich, sources []source) {
	l, ok := v.facts.store.(state.EnrichmentLister)
	if !ok {
		v.facts.needsEveryone = true
		return
	}
	c, err := takeCensus(v.facts.store, l, e, v.now, sources)
	if err == nil {
		counted := make([]bool, c.n)
		k := -1
		for _, src := range sources {
			for _, id := range src.ids.All() {
				k++
				if i := c.member(k); !counted[i] && !v.known(id) && !v.metHeld(id) && !c.candidate(i) {
					counted[i] = true
					v.unreadFresh(bp, e, id)
				}
			}
		}
	}
	if err != nil {
		v.facts.fail(err)
	}
	v.countFormerOn(bp, e, sources)
}

// countFormerOn takes into bp the people e enriched whom its sources no
// longer hold, read by a track of this run in sketch (formerSketched),
// and counts the others not read when asked (formerCounter).
func (v *env) countFormerOn(bp *blockPeople, e *config.Enrich, sources []source) {
	v.formerSketched(bp, e)
	bp.countFormer = v.formerCounter(e, sources)
}

// formerCounter lists formerUnread's people when asked: only while the
// people a search may show changed are fewer than the running sources
// bring.
func (v *env) formerCounter(e *config.Enrich, sources []source) func() []string {
	return func() []string {
		ids, err := v.formerUnread(e, sources)
		if err != nil {
			v.facts.fail(err)
		}
		return ids
	}
}

// keepUnread keeps, with several enrich blocks, the ID of a person not
// read whom bp counts in freshUnread: the bound over all blocks counts
// each such person once (enrichUnion.unreadRest).
func (v *env) keepUnread(bp *blockPeople, id string) {
	if v.facts.many {
		bp.freshUnreadIDs = append(bp.freshUnreadIDs, id)
	}
}
