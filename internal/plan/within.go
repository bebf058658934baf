package plan

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// ErrBeyondConfig is wrapped by Within's error.
var ErrBeyondConfig = errors.New("the saved plan asks for more than the configuration and the state it was made from allow")

// Within checks a saved plan against what the configuration and the state
// it was made from allow (Stale checked they are those): the plan is made
// again, offline, at the moment the saved one was made, with its targets
// and replacements, and without the enrichments other workspaces could
// lend (which only save calls), so its bounds are the most the
// configuration allows. Every change of the saved plan that may make a
// call must be one of those, with no greater bound, and so must its
// totals. A plan file's checksum is no security boundary (anyone who can
// edit the file can compute it again): this is what keeps a saved plan,
// however edited, within the configuration's limits. The copies of one
// block may leave another more calls (loans), out of those the other
// blocks spare, within the totals and the places a limit leaves.
// name is the plan file, for the error.
func (p *Plan) Within(name string, cfg *config.Config, st *state.State) error {
	_, err := p.WithinRead(name, cfg, st, nil, nil, nil)
	return err
}

// WithinRead is Within over a state read as EnrichReadsOf or ReadsOf
// says, at the moment the saved plan was made, with the store's counts it
// gave (nil: st holds every person the plan reads) and the store's
// company domains (Reads.ReadColleagues; nil: st's people tell them), and
// the people retention removes the store found (ExpiredOf; nil: st's
// people tell them). decided is false, with no
// error, when the people read cannot decide the plan
// (EnrichFacts.NeedsEveryone): check it with Within over the state read
// whole.
func (p *Plan) WithinRead(name string, cfg *config.Config, st *state.State, facts *EnrichFacts, col *Colleagues, exp *Expired) (decided bool, err error) {
	again, diags := Build(cfg, st, Options{Now: p.CreatedAt, Targets: p.Targets, Replace: p.Replace, Offline: true, Enrich: facts, Colleagues: col, Expired: exp})
	if facts.NeedsEveryone() {
		return false, nil
	}
	return true, p.within(name, again, diags, p.loans(cfg, st, again))
}

// loans gathers what Within may lend p's enrich blocks beyond again, the
// plan made again without other workspaces' enrichments, over st. A
// person a block copies holds an enrichment made elsewhere, older than
// one made now: a later block of a shorter refresh then enriches the
// people again's other blocks enriched for it. A copy a limit leaves out
// leaves its person to another block too. Such moves never add calls:
// the blocks together are lent at most the calls p's blocks spare of
// again's (one pool), and again's totals still bound p's. A block with a
// limit is lent no more than its places allow (room).
func (p *Plan) loans(cfg *config.Config, st *state.State, again *Plan) *loans {
	l := &loans{cfg: cfg, v: newEnv(cfg, st, p.CreatedAt), made: map[string]*Change{}, cpe: max(cfg.API.CreditsPerEnrich, 1)}
	for _, c := range again.Changes {
		if c.Kind == kind.Enrich {
			l.made[c.Address] = c
		}
	}
	for _, c := range p.Changes {
		if a := l.made[c.Address]; c.Kind == kind.Enrich && a != nil {
			l.pool += max(a.CallsMax-c.CallsMax, 0)
		}
	}
	return l
}

// loans are the calls Within may lend the enrich blocks of a saved plan
// beyond the plan made again over the state (made: its enrich changes by
// address): pool is what is left to lend to them all, cpe the credits of
// a call. v tells who is due for a block at the saved plan's moment.
type loans struct {
	cfg  *config.Config
	v    *env
	made map[string]*Change
	pool int
	cpe  int
}

// lend returns a, the change made again that allows c (nil: none), with
// the calls c needs beyond it lent, as many as room allows and the pool
// has left, which they leave it. A block the plan made again leaves
// nothing to may still be lent calls.
func (l *loans) lend(a, c *Change) *Change {
	if l == nil || c.Kind != kind.Enrich {
		return a
	}
	e := l.cfg.Enrich(c.Address)
	if e == nil {
		return a
	}
	more := Change{Address: c.Address, Kind: c.Kind, Action: c.Action}
	if a != nil && a.Action == c.Action {
		more = *a
	}
	need := max(c.CallsMax, c.Calls) - more.CallsMax
	n := min(need, l.pool, l.room(e, c, need))
	if n <= 0 {
		return a
	}
	l.pool -= n
	more.CallsMax += n
	more.CreditsMax += n * l.cpe
	return &more
}

// room is the most calls enrich block e may be lent for c, its change in
// the saved plan, beyond its change made again (need: those c asks).
// A block the plan made again leaves out (--target) is lent none; one
// without a limit, any. With a limit, c may make as many calls as the
// places its limit leaves (Change.places) and the people it enriches
// again (refreshes). Each other call is counted as a new place, so e
// never takes more than its limit leaves.
func (l *loans) room(e *config.Enrich, c *Change, need int) int {
	a := l.made[e.Address]
	switch {
	case a == nil:
		return 0
	case e.Limit <= 0:
		return need
	}
	n := a.places - a.CallsMax
	if n >= need {
		return n // the places alone are room enough
	}
	again, freed := l.refreshes(e, c)
	return max(n, max(a.places-freed, 0)+again-a.CallsMax)
}

// refreshes counts the distinct people c names who hold one of e's
// places in the state (holdsPlace): enriching them takes no new place.
// Each must be one e enriches again at the saved plan's moment
// (dueAgain), or one the plan made again gives another block: a name in
// c alone counts for nothing. freed are the latter, who give e their
// places back in the plan made again (freedPlaces): counted once.
func (l *loans) refreshes(e *config.Enrich, c *Change) (again, freed int) {
	held := map[string]bool{}
	for _, id := range c.PersonIDs {
		if l.holdsPlace(e, id) {
			held[id] = true
		}
	}
	for addr, a := range l.made {
		for _, id := range a.PersonIDs {
			if addr != e.Address && held[id] {
				freed++
				delete(held, id)
			}
		}
	}
	for id := range held {
		if l.dueAgain(e, id) {
			again++
		}
	}
	return again + freed, freed
}

// dueAgain reports whether e, under the configuration, enriches the
// person of id again at the saved plan's moment (env.needsEnrich): a
// person whose enrichment by e has an unknown outcome and who is not
// read is.
func (l *loans) dueAgain(e *config.Enrich, id string) bool {
	p := l.v.st.People[id]
	return p == nil || l.v.needsEnrich(e, p)
}

// holdsPlace reports whether the person of id holds one of e's places
// in the state: env.holdsPlace of the person read whole, or, for one
// not read, an enrichment by e whose outcome is unknown.
func (l *loans) holdsPlace(e *config.Enrich, id string) bool {
	if p := l.v.st.People[id]; p != nil {
		return l.v.holdsPlace(e, wholeMember(p))
	}
	return l.v.unknownOf(id, e.Address)
}

// within checks p against again, the plan made again (Within), each
// enrich block allowed the calls lent to it (loans).
func (p *Plan) within(name string, again *Plan, diags hcl.Diagnostics, l *loans) error {
	if diags.HasErrors() {
		return fmt.Errorf("%s: %w: the configuration does not plan as it did (%s); make the plan again with \"leadsync plan --out %s\"", name, ErrBeyondConfig, diags.Errs()[0], filepath.Base(name))
	}
	allowed := map[string]*Change{}
	for _, c := range again.Changes {
		allowed[c.Address+"\x00"+string(c.Kind)] = c
	}
	var over []string
	for _, c := range p.Changes {
		if c.CallsMax <= 0 && c.CreditsMax <= 0 && c.Calls <= 0 && c.Credits <= 0 {
			continue
		}
		a := l.lend(allowed[c.Address+"\x00"+string(c.Kind)], c)
		switch {
		case a == nil || a.Action != c.Action:
			over = append(over, fmt.Sprintf("%s %s, which they do not call for", c.Action, c.Address))
		case c.CallsMax > a.CallsMax || c.Calls > a.CallsMax:
			over = append(over, fmt.Sprintf("%s for %s, where they allow %s", textfmt.Plural(max(c.CallsMax, c.Calls), "call"), c.Address, textfmt.Plural(a.CallsMax, "call")))
		case c.CreditsMax > a.CreditsMax || c.Credits > a.CreditsMax:
			over = append(over, fmt.Sprintf("%s for %s, where they allow %s", textfmt.Plural(max(c.CreditsMax, c.Credits), "credit"), c.Address, textfmt.Plural(a.CreditsMax, "credit")))
		}
	}
	t, a := p.Totals, again.Totals
	for _, x := range []struct {
		got, allowed int
		one, many    string
	}{{t.CallsMax, a.CallsMax, "call", "calls"}, {t.CreditsMax, a.CreditsMax, "credit", "credits"},
		{t.QuotaCallsMax, a.QuotaCallsMax, "request of the quota", "requests of the quota"}} {
		if x.got > x.allowed {
			over = append(over, fmt.Sprintf("up to %s in all, where they allow %s", plural(x.got, x.one, x.many), plural(x.allowed, x.one, x.many)))
		}
	}
	if len(over) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w: %s. It was changed after plan --out wrote it, and nothing was spent; make it again with \"leadsync plan --out %s\"",
		name, ErrBeyondConfig, strings.Join(over, "; "), filepath.Base(name))
}
