package plan

import (
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// An apply copies, before block e claims anyone, the enrichments other
// workspaces hold of e's people (Candidates.Reuses). Only the people
// another workspace answered for (env.reuse holds one of their lookup
// keys) can be copied, so collectReused walks e's lead lists as collect
// does, in from order, but looks at those people alone: it neither looks
// the others up nor sorts them into the block's todo, failing or fresh
// people. Each person it looks at is counted as collect counts them (the
// same count, at their first meeting), and the copies take the places
// left (placeCopies), so it gives collect's copies, in the same order.
//
// It walks only where collect's walk reads nothing but the state: not
// with refresh_on (collectFormer adds people the sources no longer hold),
// nor over a state whose plan reads the store as it walks (a census, or
// the places walk). There Reuses collects the block whole, as before.

// collectReused returns what lookupReuse and then collect(e, nil, true)
// give of bp.reused, and false where it cannot tell without collect. One
// walk of e's lead lists both gathers the keys to ask the other
// workspaces about and keeps, in order, the first meeting of each person
// who may be copied (reuseMeetings); only those answered for are counted.
func (v *env) collectReused(e *config.Enrich) (blockPeople, bool, error) {
	var bp blockPeople
	if len(e.RefreshOn) > 0 || (v.facts != nil && (v.facts.store != nil || v.facts.censused(e.Address))) {
		return bp, false, nil
	}
	if v.reuse == nil {
		v.reuse, v.asked = answers{}, map[string]bool{}
	}
	v.reuseEmployers()
	met, keys := v.reuseMeetings(e)
	if err := v.askKeys(keys); err != nil {
		return bp, true, err
	}
	for _, m := range met {
		if len(v.reuse) == 0 {
			break // nobody to copy: reusable finds no one
		}
		if !v.reuseAnswered(m.p) {
			continue
		}
		if err := v.count(&bp, e, v.look(e, m.p), m.addr, true); err != nil {
			return bp, true, err
		}
	}
	v.placeCopies(e, &bp)
	return bp, true, nil
}

// meeting is the first meeting of a person in a block's lead lists.
type meeting struct {
	p    *state.Person
	addr string
}

// reuseMeetings walks e's lead lists once, in from order. It returns the
// first meeting of each person collect would meet who may be copied (a
// page name, and an enrichment due: candidate copies no one else), and
// the keys lookupReuse would ask about, each once.
func (v *env) reuseMeetings(e *config.Enrich) ([]meeting, []string) {
	var met []meeting
	var keys []string
	seen := map[*state.Person]struct{}{}
	for _, addr := range v.cfg.Resolve(e.From) {
		for _, id := range v.sourcePeople(addr).All() {
			if p := v.person(id); p != nil && v.asksAbout(e, p) {
				keys = v.unaskedKeys(keys, p)
			}
			p := v.metIn(id)
			if p == nil || v.gone[p] || p.Lead.PageName == "" || !v.needsEnrich(e, p) {
				continue
			}
			if _, dup := seen[p]; !dup {
				seen[p] = struct{}{}
				met = append(met, meeting{p, addr})
			}
		}
	}
	return met, keys
}

// metIn is the person collect meets at id in a lead list: over a partial
// state only the people it holds by that ID (collectRead), otherwise
// also those a page name's ID now names (collectEach).
func (v *env) metIn(id string) *state.Person {
	if v.facts != nil {
		return v.st.People[id]
	}
	return v.person(id)
}

// reuseAnswered reports whether another workspace answered for one of p's
// lookup keys: only then may reusable copy them.
func (v *env) reuseAnswered(p *state.Person) bool {
	for _, k := range state.LookupKeys(p) {
		if _, ok := v.reuse[k]; ok {
			return true
		}
	}
	return false
}
