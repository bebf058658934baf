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

// collectReused returns what collect(e, nil, true) gives of bp.reused,
// and false where it cannot tell without collect.
func (v *env) collectReused(e *config.Enrich) (blockPeople, bool, error) {
	var bp blockPeople
	if len(e.RefreshOn) > 0 || (v.facts != nil && (v.facts.store != nil || v.facts.censused(e.Address))) {
		return bp, false, nil
	}
	if len(v.reuse) == 0 {
		v.placeCopies(e, &bp)
		return bp, true, nil // nobody to copy: reusable finds no one
	}
	seen := map[*state.Person]struct{}{}
	for _, addr := range v.cfg.Resolve(e.From) {
		for _, id := range v.sourcePeople(addr).All() {
			p := v.metIn(id)
			if p == nil || v.gone[p] || !v.reuseAnswered(p) {
				continue
			}
			if _, dup := seen[p]; dup {
				continue
			}
			seen[p] = struct{}{}
			if err := v.count(&bp, e, v.look(e, p), addr, true); err != nil {
				return bp, true, err
			}
		}
	}
	v.placeCopies(e, &bp)
	return bp, true, nil
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
