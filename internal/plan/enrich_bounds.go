package plan

import (
	"slices"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// enrichBound is the most people e may enrich in this run (its CallsMax)
// when sources of the plan run (or import new people) or reads may show
// changes, given its known people bp, those a read may show changed
// (changing), the certain count (claimRounds), the most people its
// running sources can bring (unknown) and the known people who fail where
// now but may pass once a running search updates their lead (flips):
//
//   - every source that runs may bring up to its bound of people (300 or
//     max_results per search, 1 per profile, the new people of an import);
//   - known people who fail where now (or have no page name, or left the
//     network) may qualify once a call of this run changes them: every one
//     a read of this run reads (a track's or a profile block's: a new job,
//     a profile back) or an import of this plan names, and, at most as
//     many as all running sources bring, those a search that runs may
//     find with another lead;
//   - with refresh_on, every person a read may show changed may be
//     enriched again, and so may, within the same allowance of the
//     running sources, the others it enriched;
//   - with a limit, the block may enrich no more than the people it owns
//     and may refresh, plus its free places, plus the people other blocks
//     could take from it by enriching them again (each of those frees a
//     place): limitBound.
func (b *builder) enrichBound(e *config.Enrich, bp blockPeople, changing changing, certain, unknown, flips int) int {
	bound := len(bp.todo) + bp.unread + flips + unknown + changing.len()
	if e.Limit > 0 {
		bound = min(bound, b.limitBound(e, bp, changing, unknown == 0 && flips == 0))
	}
	// Below the certain count cannot happen; keep the bound honest
	// regardless.
	return max(bound, certain)
}

// limitBound bounds the people e may enrich under its limit: those it
// owns that may be enriched again (ownedCap), the places held by
// enrichments of an unknown outcome (their person may be enriched again
// in them) and the free places. With nothingNew (no running source of e
// and no person who may come to pass where), e can only enrich again, of
// its own people, those known to need it and those a read of this run
// may show changed.
//
// todo holds no one read in sketch: ownedCapRead asks it of the people
// held whole, and sketchedAgain counts the others.
func (b *builder) limitBound(e *config.Enrich, bp blockPeople, changing changing, nothingNew bool) int {
	var todoSet map[string]bool
	if nothingNew {
		todoSet = make(map[string]bool, len(bp.todo)+len(changing.people))
		for _, m := range bp.todo {
			todoSet[b.v.memberID(m)] = true
		}
		for _, p := range changing.people {
			todoSet[p.ID] = true
		}
	}
	held := len(b.v.st.UnknownBy(e.Address))
	places := max(e.Limit-b.v.ownedBy(e.Address)-held-b.v.erasedBy(e.Address), 0)
	return b.ownedCap(e, todoSet, b.searchesRun()) + held + places
}

// enrichUnion keeps what the bound over all enrich blocks needs while the
// blocks are planned: the sum of their bounds, and the distinct people
// they may enrich. With one block its own counts are the union; with
// several, the people they share are counted once through sets.
type enrichUnion struct {
	running    map[string]int // builder.running
	importNew  map[string]int // builder.importNew
	runningAll int            // the most people all running sources bring
	shared     bool           // several blocks: count through the sets
	todo       map[string]bool
	failing    map[*state.Person]bool
	fresh      map[*state.Person]bool // enriched people a search may show changed (refresh_on)
	todoN      int                    // one block: its todo and changing
	flipsN     int                    // one block: its flips (failing, refresh_on)
	sources    map[string]bool        // the running sources of any block
	sumMax     int                    // the sum of the blocks' bounds
	// unread are the IDs of the enriched people not read whom a search
	// may show changed (freshUnreadIDs, formerUnreadIDs); formers list
	// the latter of the blocks that did not ask (countFormer).
	unread  [][]string
	formers []func() []string
	// counted are, sorted, the people not read whom the walks or the
	// censuses counted to enrich, not in todo (unionRead): a string each,
	// not a map entry each (8 MB at 492,000 people, not 31 MB).
	counted []string
}

func newEnrichUnion(running, importNew map[string]int, shared bool) *enrichUnion {
	u := &enrichUnion{running: running, importNew: importNew, shared: shared,
		todo: map[string]bool{}, failing: map[*state.Person]bool{}, fresh: map[*state.Person]bool{}, sources: map[string]bool{}}
	for _, n := range running {
		u.runningAll += n
	}
	return u
}

// flips is how many of a block's people no read reads (failing, or
// enriched and watched by refresh_on) a search may change so that they
// are enriched: none when no source of the plan runs, at most as many as
// they bring.
func (u *enrichUnion) flips(failing int) int {
	if u.runningAll == 0 {
		return 0
	}
	return min(failing, u.runningAll)
}

// add counts one block: its known people (to enrich, or that a read may
// show changed), the enriched people only a search may show changed
// (restFresh), its flips, its running sources and its bound.
func (u *enrichUnion) add(b *builder, bp blockPeople, changing changing, restFresh []*state.Person, flips int, runSources []string, bound int) {
	for _, a := range runSources {
		u.sources[a] = true
	}
	if u.shared {
		for _, m := range bp.todo {
			u.todo[b.v.memberID(m)] = true
		}
		for _, p := range changing.people {
			u.todo[p.ID] = true
		}
		for _, i := range changing.sketched {
			u.todo[b.v.st.TrackSketches().ID(int(i))] = true
		}
		for _, p := range bp.failing {
			u.failing[p] = true
		}
		for _, p := range restFresh {
			u.fresh[p] = true
		}
		u.unread = append(u.unread, bp.freshUnreadIDs, bp.formerUnreadIDs)
		if bp.countFormer != nil {
			u.formers = append(u.formers, bp.countFormer)
		}
	} else {
		u.todoN, u.flipsN = len(bp.todo)+bp.unread+changing.len(), flips
	}
	u.sumMax += bound
}

// bound is the bound over all blocks: the distinct people that can be
// enriched in this run (known people to enrich, known people who may come
// to pass where, and what every running source and import may bring),
// and never more than the blocks' bounds together.
func (u *enrichUnion) bound(b *builder) int {
	union := u.todoN + u.flipsN
	if u.shared {
		union = len(u.todo) + len(u.counted)
		read, rest := 0, 0
		for p := range u.failing {
			if !u.toEnrich(p.ID) {
				switch b.changedBy(p) {
				case byRead:
					read++
				case bySearch:
					rest++
				}
			}
		}
		for p := range u.fresh {
			if !u.toEnrich(p.ID) && !u.failing[p] {
				rest++
			}
		}
		union += read + u.flips(rest+u.unreadRest(rest))
	}
	for a := range u.sources {
		union += u.running[a] + u.importNew[a]
	}
	return min(u.sumMax, union)
}

// toEnrich reports whether the person of ID id is among the people to
// enrich of the union: in todo, or counted.
func (u *enrichUnion) toEnrich(id string) bool {
	if u.todo[id] {
		return true
	}
	_, found := slices.BinarySearch(u.counted, id)
	return found
}

// ownedCap bounds the calls of e on people it already enriched: each may
// be enriched again by e when stale for e (and, with todo given, among
// todo), or enriched again by another block when stale for that one, which
// frees one of e's places. Stale includes refresh_on: a field of it that
// changed since the enrichment, or that a call of this run may change (a
// read of this run reads them or an import names them; with searching, a
// search that runs may find them). Either way a person accounts for one
// call of e at most. The people whose enrichment an import of this plan
// replaces are e's no more.
func (b *builder) ownedCap(e *config.Enrich, todo map[string]bool, searching bool) int {
	if c := b.v.counted(e.Address); c != nil && anyRefreshOn(b.cfg) {
		return b.ownedCapOn(e, c, todo, searching)
	} else if c != nil {
		return b.ownedCapCounted(e, c, todo)
	}
	return b.ownedCapRead(e, todo, searching, otherRefresh(b.cfg, e), refreshOnOthers(b.cfg, e))
}

// unreadRest counts, with several blocks over a state read in part, the
// distinct people not read whom a search may show changed (u.unread, then
// u.formers) and who are neither to enrich nor counted among the rest of
// the people read: as many as the running sources bring past rest.
func (u *enrichUnion) unreadRest(rest int) int {
	if rest >= u.runningAll || len(u.unread)+len(u.formers) == 0 {
		return 0
	}
	seen := map[string]bool{}
	for p := range u.fresh {
		seen[p.ID] = true
	}
	for p := range u.failing {
		seen[p.ID] = true
	}
	n := 0
	count := func(ids []string) bool {
		for _, id := range ids {
			if !u.toEnrich(id) && !seen[id] {
				seen[id] = true
				if n++; rest+n >= u.runningAll {
					return true
				}
			}
		}
		return false
	}
	for _, ids := range u.unread {
		if count(ids) {
			return n
		}
	}
	for _, f := range u.formers {
		if count(f()) {
			return n
		}
	}
	return n
}

// changing are the people of an enrich block a call of this run may show
// changed (mayChange): those held whole, and those a track of this run
// reads in sketch, by their index in the state's TrackSketches
// (blockPeople.sketched: no Person each).
type changing struct {
	people   []*state.Person
	sketched []int32
}

// len is how many people c holds.
func (c changing) len() int { return len(c.people) + len(c.sketched) }
