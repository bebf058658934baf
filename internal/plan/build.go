package plan

import (
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/version"
)

// SearchLatency is the longest a search may take (spec section 1); the
// duration bound counts every search at it.
const SearchLatency = api.MaxSearchLatency

// Build compares the configuration with the state and returns the plan.
// Errors (unknown targets, a where that cannot be evaluated, a quota or
// credit cap the plan would break) come back as diagnostics; the plan is
// returned with them, so that the caller can still show what it would cost.
func Build(cfg *config.Config, st *state.State, opts Options) (*Plan, hcl.Diagnostics) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	if st == nil {
		st = &state.State{}
	}
	// Moved blocks: the plan is made on the state as it will be once
	// apply has recorded the moves, which it does first.
	moves, moveDiags := movesOf(cfg, st, opts)
	if len(moves) > 0 {
		st = st.Moved(moves)
	}
	b := &builder{cfg: cfg, st: st, opts: opts, v: newEnv(cfg, st, now), now: now,
		running: map[string]int{}, diags: moveDiags}
	defer b.v.settle()
	b.v.trackSketchGC()
	b.v.lookup = opts.Reuse
	b.v.facts = opts.Enrich
	opts.Enrich.movedBy(opts.Moved)
	opts.Enrich.forgetReads()
	b.v.colleagues = opts.Colleagues
	p := &Plan{
		FormatVersion:   FormatVersion,
		LeadsyncVersion: version.String(),
		Lineage:         st.Lineage,
		Serial:          st.Serial,
		ConfigHash:      cfg.Hash,
		Workspace:       workspaceOf(cfg.Workspace),
		CreatedAt:       now.UTC(),
		Targets:         append([]string{}, opts.Targets...),
		Replace:         append([]string{}, opts.Replace...),
	}
	if st.Serial == 0 {
		// A state never written has a lineage made up in memory, which
		// the next load would not have: record none.
		p.Lineage = ""
	}
	b.p = p
	p.Suppressed = len(st.Suppressed)
	b.selectTargets()
	b.selectReplace()
	if !b.diags.HasErrors() {
		b.moved(moves)
		b.retention()
		if b.limited() {
			b.v.prefetchOwned()
		}
		for _, s := range cfg.Searches {
			if b.selected(s.Address) {
				b.add(b.search(s))
			}
		}
		for _, pr := range cfg.Profiles {
			if b.selected(pr.Address) {
				b.add(b.profile(pr))
			}
		}
		b.imports()
		b.tracks()
		b.enriches()
		b.forgets()
		b.exports()
		b.dropUpToDateMoved()
		b.totals()
		b.quota()
		b.budget()
		b.creditBalance()
	}
	redact(cfg, p)
	b.removed.unpack()
	p.Diagnostics = JSONDiagnostics(b.diags)
	p.normalize()
	return p, b.diags
}

// CheckAddresses reports the errors of Build's targets and replacements
// alone (an unknown --target, with the nearest address), so that a
// command refuses them before it makes any call (the billing call).
func CheckAddresses(cfg *config.Config, st *state.State, targets, replace []string) hcl.Diagnostics {
	if len(targets) == 0 && len(replace) == 0 {
		return nil
	}
	if st == nil {
		st = &state.State{}
	}
	b := &builder{cfg: cfg, st: st, opts: Options{Targets: targets, Replace: replace}}
	b.selectTargets()
	b.selectReplace()
	return b.diags
}

// builder carries one Build.
type builder struct {
	cfg   *config.Config
	st    *state.State
	opts  Options
	v     *env
	now   time.Time
	p     *Plan
	diags hcl.Diagnostics

	// sel is nil when every address is planned, else the addresses chosen
	// by the targets.
	sel     map[string]bool
	replace map[string]bool
	// running maps each source that will run to the most people it can
	// bring (300 or max_results for a search, 1 for a profile).
	running map[string]int
	// enrichMax is the bound on distinct people enriched by all blocks.
	enrichMax int
	// importNew maps each import of this plan to the most people not in
	// the state yet it may give an enrich block to enrich.
	importNew map[string]int
	// reads maps the page of each profile read planned (api.PageKey) to
	// its address: a later profile block of the same page shares it.
	reads map[string]string
	// held maps a page (api.PageKey) to the profile addresses of the
	// configuration whose reads of it state holds; built on first use.
	held map[string][]string
	// removed is the retention change, its IDs packed (unpack).
	removed *removal
	// tracked maps each person a track reads in this run to its address.
	tracked map[*state.Person]string
	// trackedSketch are those of them held in sketch (trackNow).
	trackedSketch marks
	// idx is what --target and --replace look their addresses up in
	// (index).
	idx *targetIndex
}

func (b *builder) add(c *Change) { b.p.Changes = append(b.p.Changes, c) }

func (b *builder) selected(addr string) bool { return b.sel == nil || b.sel[addr] }

func (b *builder) errorf(summary, detail string) {
	b.diags = append(b.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail})
}

// blockOf returns the block address of an instance address.
func blockOf(addr string) string { return address.Block(addr) }

const addressHelp = `Addresses look like search.cto (every instance), search.cto["Berlin"], search.cto[0], profile.founder, enrich.cto_contacts, track.champions, export.marketing, or module.dach (everything in a module) and module.dach.search.cto; quote them for the shell. "leadsync state list" shows the addresses in state.`
