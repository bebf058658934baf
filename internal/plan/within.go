package plan

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
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
// block may leave another, without a limit, more calls (copiesLent),
// within the totals.
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
	return true, p.within(name, again, diags, p.copiesLent(cfg, again))
}

// copiesLent counts, for each enrich block of p without a limit, the
// calls p's copies may leave it beyond again, the plan made again without
// other workspaces' enrichments. A person a block copies holds an
// enrichment made elsewhere, older than one made now, and takes a place
// under its limit: a later block of a shorter refresh then enriches the
// people again's other blocks enriched for it. Those are at most the
// calls again's other blocks make, and again's totals still bound p's. A
// block with a limit is lent nothing: its places are again's.
func (p *Plan) copiesLent(cfg *config.Config, again *Plan) map[string]lent {
	if !slices.ContainsFunc(p.Changes, func(c *Change) bool { return c.Kind == kind.Enrich && c.Reuses > 0 }) {
		return nil
	}
	calls, made := 0, map[string]int{}
	for _, c := range again.Changes {
		if c.Kind == kind.Enrich {
			calls += c.CallsMax
			made[c.Address] = c.CallsMax
		}
	}
	cpe := max(cfg.API.CreditsPerEnrich, 1)
	out := map[string]lent{}
	for _, c := range p.Changes {
		if e := cfg.Enrich(c.Address); c.Kind == kind.Enrich && e != nil && e.Limit <= 0 && calls > made[c.Address] {
			n := calls - made[c.Address]
			out[c.Address] = lent{calls: n, credits: n * cpe}
		}
	}
	return out
}

// lent is what copiesLent allows one enrich block beyond the plan made
// again.
type lent struct{ calls, credits int }

// lentTo returns a, the change made again that allows c, with l added to
// its bounds; a block the plan made again leaves nothing to may still be
// lent calls.
func lentTo(a, c *Change, l lent) *Change {
	if l.calls == 0 {
		return a
	}
	more := Change{Address: c.Address, Kind: c.Kind, Action: c.Action}
	if a != nil && a.Action == c.Action {
		more = *a
	}
	more.CallsMax += l.calls
	more.CreditsMax += l.credits
	return &more
}

// within checks p against again, the plan made again (Within), each
// enrich block allowed the calls lent to it (copiesLent).
func (p *Plan) within(name string, again *Plan, diags hcl.Diagnostics, lent map[string]lent) error {
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
		a := lentTo(allowed[c.Address+"\x00"+string(c.Kind)], c, lent[c.Address])
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
