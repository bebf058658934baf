package plan

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
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
	moves, moveDiags := Moves(cfg, st)
	if len(moves) > 0 {
		st = st.Moved(moves)
	}
	b := &builder{cfg: cfg, st: st, opts: opts, v: newEnv(cfg, st, now), now: now,
		running: map[string]int{}, diags: moveDiags}
	defer b.v.settle()
	b.v.lookup = opts.Reuse
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
	// tracked maps each person a track reads in this run to its address.
	tracked map[*state.Person]string
}

func (b *builder) add(c *Change) { b.p.Changes = append(b.p.Changes, c) }

func (b *builder) selected(addr string) bool { return b.sel == nil || b.sel[addr] }

func (b *builder) errorf(summary, detail string) {
	b.diags = append(b.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail})
}

// blockOf returns the block address of an instance address.
func blockOf(addr string) string { return address.Block(addr) }

const addressHelp = `Addresses look like search.cto (every instance), search.cto["Berlin"], search.cto[0], profile.founder, enrich.cto_contacts, track.champions, export.marketing, or module.dach (everything in a module) and module.dach.search.cto; quote them for the shell. "leadsync state list" shows the addresses in state.`

// targetMatcher reports which addresses an address given with --target or
// --replace names: itself, every instance of a block, everything inside a
// module (see address.Address.Contains).
func targetMatcher(t string) func(addr string) bool {
	p, err := address.Parse(t)
	if err != nil {
		return func(addr string) bool { return addr == t }
	}
	return func(addr string) bool {
		if addr == t {
			return true
		}
		a, err := address.Parse(addr)
		return err == nil && p.Contains(a)
	}
}

// selectTargets resolves --target into the set of planned addresses.
func (b *builder) selectTargets() {
	if len(b.opts.Targets) == 0 {
		return
	}
	b.sel = map[string]bool{}
	addSources := func(from []string) {
		for _, a := range b.cfg.Resolve(from) {
			b.sel[a] = true
		}
	}
	for _, t := range b.opts.Targets {
		t = strings.TrimSpace(t)
		match := targetMatcher(t)
		found := false
		for _, s := range b.cfg.Searches {
			if match(s.Address) {
				b.sel[s.Address], found = true, true
			}
		}
		for _, p := range b.cfg.Profiles {
			if match(p.Address) {
				b.sel[p.Address], found = true, true
			}
		}
		for _, im := range b.cfg.Imports {
			if im.Address == t {
				b.sel[im.Address], found = true, true
			}
		}
		for _, e := range b.cfg.Enriches {
			if match(e.Address) {
				b.sel[e.Address], found = true, true
				addSources(e.From)
			}
		}
		// A track reads the people state holds: its sources need not run.
		for _, tr := range b.cfg.Tracks {
			if tr.Address == t {
				b.sel[tr.Address], found = true, true
			}
		}
		for _, x := range b.cfg.Exports {
			if match(x.Address) {
				b.sel[x.Address], found = true, true
				for _, sh := range x.Sheets {
					addSources(sh.From)
				}
			}
		}
		for _, addr := range b.stateAddresses() {
			if match(addr) {
				b.sel[addr], found = true, true
			}
		}
		if !found {
			hint := addressHelp
			if n := catalog.Nearest(t, b.targetAddresses(), 1); len(n) > 0 {
				hint = fmt.Sprintf("Did you mean %s? %s", n[0], addressHelp)
			}
			b.errorf(fmt.Sprintf("Unknown target %q", t),
				fmt.Sprintf("--target %s names nothing in the configuration or the state. %s", t, hint))
		}
	}
}

// targetAddresses are the addresses --target takes: every instance and
// block of the configuration and of the state, each once.
func (b *builder) targetAddresses() []string {
	seen := map[string]bool{}
	var out []string
	add := func(as ...string) {
		for _, a := range as {
			if a != "" && !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	for _, s := range b.cfg.Searches {
		add(s.Address, s.Block)
	}
	for _, p := range b.cfg.Profiles {
		add(p.Address, p.Block)
	}
	for _, im := range b.cfg.Imports {
		add(im.Address)
	}
	for _, e := range b.cfg.Enriches {
		add(e.Address)
	}
	for _, t := range b.cfg.Tracks {
		add(t.Address)
	}
	for _, x := range b.cfg.Exports {
		add(x.Address)
	}
	for _, m := range b.cfg.Modules {
		add(m.Call, m.Address)
	}
	for _, a := range b.stateAddresses() {
		add(a, blockOf(a))
	}
	return out
}

// selectReplace resolves --replace into instance addresses.
func (b *builder) selectReplace() {
	b.replace = map[string]bool{}
	for _, r := range b.opts.Replace {
		r = strings.TrimSpace(r)
		match := targetMatcher(r)
		found := false
		for _, s := range b.cfg.Searches {
			if match(s.Address) {
				b.replace[s.Address], found = true, true
			}
		}
		for _, p := range b.cfg.Profiles {
			if match(p.Address) {
				b.replace[p.Address], found = true, true
			}
		}
		for _, t := range b.cfg.Tracks {
			if t.Address == r {
				b.replace[t.Address], found = true, true // every person read again
			}
		}
		if found {
			continue
		}
		switch k := address.Kind(r); {
		case k == kind.Enrich || k == kind.Export:
			b.errorf(fmt.Sprintf("Cannot replace %s", r),
				"Only searches, profiles and tracks can be replaced. To enrich people again, set refresh or refresh_on on the enrich block; to rewrite a spreadsheet, run \"leadsync export\".")
		default:
			b.errorf(fmt.Sprintf("Unknown address to replace %q", r),
				fmt.Sprintf("--replace %s names no search, profile or track of the configuration. %s", r, b.replaceHint(r)))
		}
	}
	b.checkReplaceTargeted()
}

// stateAddresses lists the search and profile addresses state knows of.
func (b *builder) stateAddresses() []string {
	var out []string
	for a := range b.st.Searches {
		out = append(out, a)
	}
	for a := range b.st.Profiles {
		out = append(out, a)
	}
	for a := range b.st.Imports {
		out = append(out, a)
	}
	for a := range b.st.Splits {
		if _, ok := b.st.Searches[a]; !ok {
			out = append(out, a) // a split run under way, never completed
		}
	}
	for a := range b.st.Failures {
		if _, ok := b.st.Searches[a]; ok {
			continue
		}
		if _, ok := b.st.Splits[a]; ok {
			continue
		}
		if _, ok := b.st.Profiles[a]; ok {
			continue
		}
		if k := address.Kind(a); k == kind.Search || k == kind.Profile {
			out = append(out, a)
		}
	}
	sort.Strings(out)
	return out
}

// searchBound is the most people one run of s can bring: for a split
// search max_results, or the cap for every node of the whole tree.
func searchBound(s *config.Search) int {
	if s.SplitBy != nil {
		if s.MaxResults > 0 {
			return s.MaxResults
		}
		return api.MaxResults * state.SplitTreeSize(SplitDimensions(s), 0)
	}
	if s.MaxResults > 0 && s.MaxResults < api.MaxResults {
		return s.MaxResults
	}
	return api.MaxResults
}

// search plans one search instance.
func (b *builder) search(s *config.Search) *Change {
	rec := b.st.Searches[s.Address]
	c := &Change{Address: s.Address, Kind: kind.Search, Calls: 1, CallsMax: 1}
	gen := b.cfg.API.Generation
	switch {
	case rec == nil:
		c.Action, c.Reason, c.Detail = Run, ReasonNew, describeRequest(s.Request)
		if f := b.st.Failures[s.Address]; f != nil {
			c.Detail += fmt.Sprintf(" (last attempt %s failed: %s)", ago(b.now, f.At), oneLine(f.Message))
		}
	case b.replace[s.Address]:
		c.Action, c.Reason = Rerun, ReasonReplace
		c.Detail = fmt.Sprintf("replace requested; last run %s", ago(b.now, rec.RanAt))
	case rec.Generation != gen:
		c.Action, c.Reason = Rerun, ReasonGenerationChanged
		c.Detail = fmt.Sprintf("generation changed: %d -> %d", int(rec.Generation), int(gen))
	case !b.v.searchCurrent(s, rec):
		c.Action, c.Reason = Rerun, ReasonRequestChanged
		c.Detail = "changed: " + diffRequest(rec.Request, s.Request)
	case !b.splitCurrent(s, rec):
		c.Action, c.Reason = Rerun, ReasonSplitChanged
		c.Detail = "split_by changed"
	case rec.MaxResults > 0 && rec.ResultCount > rec.MaxResults && searchBound(s) > rec.MaxResults:
		// The last run dropped results that max_results now keeps.
		c.Action, c.Reason = Rerun, ReasonMaxResultsRaised
		c.Detail = fmt.Sprintf("max_results raised: the last run kept %d of %d results, %d allowed now",
			len(rec.LeadIDs), rec.ResultCount, searchBound(s))
	case s.Refresh > 0 && b.now.Sub(rec.RanAt) >= s.Refresh:
		c.Action, c.Reason = Refresh, ReasonRefresh
		c.Detail = fmt.Sprintf("last run %s (refresh = %s)", ago(b.now, rec.RanAt), formatDuration(s.Refresh))
	case b.splitResumable(s):
		c.Action, c.Reason = Refresh, ReasonResume
		c.Detail = fmt.Sprintf("a run stopped in the middle; last complete run %s", ago(b.now, rec.RanAt))
	case s.MaxResults > 0 && len(rec.LeadIDs) > s.MaxResults:
		// The last run kept more than max_results allows now: the first
		// max_results stay, in state as in the exports (state.EventTrim).
		c.Action, c.Reason, c.Calls, c.CallsMax = Update, ReasonMaxResultsLowered, 0, 0
		c.Detail = fmt.Sprintf("keep %s of %s (max_results lowered; no call)", thousands(s.MaxResults), plural(len(rec.LeadIDs), "lead", "leads"))
	default:
		c.Action, c.Reason, c.Calls, c.CallsMax = None, ReasonUpToDate, 0, 0
		c.Detail = fmt.Sprintf("ran %s, %s kept", ago(b.now, rec.RanAt), plural(len(keptLeads(s, rec)), "lead", "leads"))
	}
	if s.SplitBy != nil {
		b.splitSearch(s, c)
		switch {
		case c.CallsMax > 0:
			c.Detail += "; " + splitDetail(s, c.Split)
		case c.Split.Last != nil:
			c.Detail += fmt.Sprintf("; %s, %s", plural(c.Split.Last.SubSearches, "sub-search", "sub-searches"), c.Split.Last.Verdict())
		}
	}
	if c.CallsMax > 0 {
		b.running[s.Address] = searchBound(s)
	}
	return c
}

// profile plans one profile instance.
func (b *builder) profile(p *config.Profile) *Change {
	rec := b.st.Profiles[p.Address]
	c := &Change{Address: p.Address, Kind: kind.Profile, Action: Read, Calls: 1, CallsMax: 1}
	gen := b.cfg.API.Generation
	switch {
	case rec == nil:
		c.Reason, c.Detail = ReasonNew, describePage(p)
		if f := b.st.Failures[p.Address]; f != nil {
			c.Detail += fmt.Sprintf(" (last attempt %s failed: %s)", ago(b.now, f.At), oneLine(f.Message))
		}
	case b.replace[p.Address]:
		c.Reason, c.Detail = ReasonReplace, fmt.Sprintf("replace requested; last read %s", ago(b.now, rec.ReadAt))
	case rec.Generation != gen:
		c.Reason, c.Detail = ReasonGenerationChanged, fmt.Sprintf("generation changed: %d -> %d", int(rec.Generation), int(gen))
	case !b.v.profileCurrent(p, rec):
		c.Reason, c.Detail = ReasonRequestChanged, "changed: "+describePage(p)
	case p.Refresh > 0 && b.now.Sub(rec.ReadAt) >= p.Refresh:
		c.Reason = ReasonRefresh
		c.Detail = fmt.Sprintf("last read %s (refresh = %s)", ago(b.now, rec.ReadAt), formatDuration(p.Refresh))
	default:
		c.Action, c.Reason, c.Calls, c.CallsMax = None, ReasonUpToDate, 0, 0
		c.Detail = fmt.Sprintf("read %s", ago(b.now, rec.ReadAt))
	}
	if c.CallsMax > 0 {
		b.shareRead(p, c)
	}
	if c.CallsMax > 0 || (c.SameAs != "" && b.running[c.SameAs] > 0) {
		// Its person comes with a read of this run.
		b.running[p.Address] = 1
	}
	return c
}

// shareRead makes the read planned for p (c) an update without a call
// when another profile block reads the same person (the same page name,
// as the network compares them: api.PageKey): one planned earlier in
// this run, whose answer apply records under both addresses; or, unless p
// is to be replaced, one whose read state holds and that is not older
// than p's refresh (no refresh: any). Otherwise p's read is the one later
// blocks of this page share.
func (b *builder) shareRead(p *config.Profile, c *Change) {
	key := api.PageKey(p.PageName)
	if key == "" {
		return
	}
	if b.reads == nil {
		b.reads = map[string]string{}
	}
	if from, ok := b.reads[key]; ok {
		c.Action, c.Reason, c.Calls, c.CallsMax, c.SameAs = Update, ReasonSamePerson, 0, 0, from
		c.Detail = fmt.Sprintf("same person as %s: read once (no call)", from)
		return
	}
	if !b.replace[p.Address] {
		if from, at := b.heldRead(p, key); from != "" {
			c.Action, c.Reason, c.Calls, c.CallsMax, c.SameAs = Update, ReasonSamePerson, 0, 0, from
			c.Detail = fmt.Sprintf("same person as %s, read %s: no call", from, ago(b.now, at))
			b.v.shared[p.Address] = from
			return
		}
	}
	b.reads[key] = p.Address
}

// heldRead returns the profile address, other than p's, whose read of the
// page key state holds, of the configured generation, with its person in
// state (and not removed by retention first), from a profile block of the
// configuration (so that apply does not forget it first), not older than
// p's refresh: the newest such read (the first address on a tie), "" when
// none.
func (b *builder) heldRead(p *config.Profile, key string) (string, time.Time) {
	if b.held == nil {
		b.held = map[string][]string{}
		for _, q := range b.cfg.Profiles {
			rec := b.st.Profiles[q.Address]
			if rec == nil || rec.Generation != b.cfg.API.Generation || rec.PersonID == "" {
				continue
			}
			if person := b.st.Person(rec.PersonID); person == nil || b.v.gone[person] {
				continue // retention removes them (and the read) first
			}
			var req api.PageRequest
			if json.Unmarshal(rec.Request, &req) != nil {
				continue
			}
			if k := api.PageKey(req.Page()); k != "" {
				b.held[k] = append(b.held[k], q.Address)
			}
		}
	}
	best, at := "", time.Time{}
	for _, q := range b.held[key] {
		rec := b.st.Profiles[q]
		if q == p.Address || (p.Refresh > 0 && b.now.Sub(rec.ReadAt) >= p.Refresh) {
			continue
		}
		if best == "" || rec.ReadAt.After(at) {
			best, at = q, rec.ReadAt
		}
	}
	return best, at
}

// enriches plans the enrich blocks, in declaration order.
//
// For each block, the people of its sources that will not run are known:
// Calls counts those apply would choose from them (claimRounds: the rule of
// Candidates.Claimed, block by block, a person claimed by an earlier
// block left to it). The bound CallsMax adds what apply could find beyond
// them (enrichBound). The bound over all blocks also counts each person
// once: a person is enriched at most once per run (afterwards their
// enrichment is fresh); enrichUnion keeps the figures it needs.
func (b *builder) enriches() {
	blocks, people, ok := b.enrichPeople()
	if !ok {
		return
	}
	todos := make([][]*state.Person, len(blocks))
	for i := range blocks {
		todos[i] = people[i].todo
	}
	cpe := b.creditsPerEnrich()
	certains := b.v.claimRounds(blocks, todos)
	// What a block could have spent bounds what it saves: the copies take
	// their places first (placeCopies), the people it pays for theirs;
	// the imports' e-mails, then the people excluded, save at most the
	// places left.
	places := b.v.spendablePlaces(blocks, certains)
	b.reusedSavings(people, cpe)
	b.importedSavings(people, places, cpe)
	b.excludedSavings(people, places, cpe)
	u := newEnrichUnion(b.running, b.importNew, len(blocks) > 1)
	for i, e := range blocks {
		bp, certain := people[i], certains[i]
		src := b.runningSources(e)
		// People who may qualify once a call of this run changes them:
		// those a read of this run reads or an import of this plan names,
		// and up to what the running sources bring of the rest.
		readFlips, restFailing := b.countByRead(bp.failing)
		// refresh_on: people enriched before whose company (or title) a
		// call of this run may find changed: up to that many enrichments
		// again, known only once the reads are in.
		changing, restFresh := b.mayChange(e, bp.fresh)
		// The people it enriched whom its sources no longer hold
		// (collectFormer): a read of this run (or an import) may show them
		// changed, and so may any search that runs and finds them.
		formerChanging, restFormer := b.mayChange(e, bp.formerFresh)
		changing = append(changing, formerChanging...)
		flips := readFlips + u.flips(restFailing+len(restFresh)+len(restFormer))
		// When no source of the plan runs, no import brings anyone new and
		// no call may show a change, nothing apply learns can change who
		// is enriched: the bound is the certain count itself.
		bound := len(certain)
		if u.runningAll > 0 || src.people > 0 || len(changing) > 0 || flips > 0 {
			bound = b.enrichBound(e, bp, changing, len(certain), src.people, flips)
		}
		u.add(bp, changing, slices.Concat(restFresh, restFormer), flips, src.addrs, bound)
		b.add(b.enrichChange(e, bp, certain, bound, src.addrs, len(changing)))
	}
	b.enrichMax = u.bound(b)
}

// enrichPeople gathers the people of each selected enrich block's sources
// that will not run (the people of a source that runs are not known yet),
// having asked the other workspaces what they can reuse. A block whose
// where cannot be evaluated is reported and left out; ok is false when the
// other workspaces cannot be read (reported).
func (b *builder) enrichPeople() (blocks []*config.Enrich, people []blockPeople, ok bool) {
	skipRunning := func(addr string) bool { _, ok := b.running[addr]; return ok }
	var selected []*config.Enrich
	for _, e := range b.cfg.Enriches {
		if b.selected(e.Address) {
			selected = append(selected, e)
		}
	}
	if err := b.v.lookupReuse(selected, skipRunning); err != nil {
		b.errorf("Cannot read the other workspaces", err.Error())
		return nil, nil, false
	}
	b.v.keepMet = len(selected) > 1
	defer func() { b.v.keepMet = false }()
	for _, e := range selected {
		bp, err := b.v.collect(e, skipRunning, true)
		if err != nil {
			b.diags = append(b.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Cannot evaluate where",
				Detail:   err.Error(),
				Subject:  rangePtr(e.DeclRange),
			})
			continue
		}
		blocks = append(blocks, e)
		people = append(people, bp)
	}
	return blocks, people, true
}

// sourcesRunning are the sources of an enrich block that bring people the
// plan does not know yet: the searches and profiles that run, and the
// imports with people new to the state.
type sourcesRunning struct {
	addrs  []string // in from order
	people int      // the most people they can bring together
}

// runningSources returns the sources of e that run in this plan, or
// import people new to the state.
func (b *builder) runningSources(e *config.Enrich) sourcesRunning {
	var src sourcesRunning
	for _, a := range b.cfg.Resolve(e.From) {
		if n, ok := b.running[a]; ok {
			src.people += n
			src.addrs = append(src.addrs, a)
		}
		if n := b.importNew[a]; n > 0 {
			src.people += n
			src.addrs = append(src.addrs, a)
		}
	}
	return src
}

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
func (b *builder) enrichBound(e *config.Enrich, bp blockPeople, changing []*state.Person, certain, unknown, flips int) int {
	bound := len(bp.todo) + flips + unknown + len(changing)
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
func (b *builder) limitBound(e *config.Enrich, bp blockPeople, changing []*state.Person, nothingNew bool) int {
	var todoSet map[string]bool
	if nothingNew {
		todoSet = make(map[string]bool, len(bp.todo)+len(changing))
		for _, p := range bp.todo {
			todoSet[p.ID] = true
		}
		for _, p := range changing {
			todoSet[p.ID] = true
		}
	}
	held := len(b.v.st.UnknownBy(e.Address))
	places := max(e.Limit-b.v.ownedBy(e.Address)-held-b.v.erasedBy(e.Address), 0)
	return b.ownedCap(e, todoSet, b.searchesRun()) + held + places
}

// enrichChange is the change of enrich block e: certain are the people it
// enriches for sure, bound the most it may, runSources its sources that
// run or import new people, changing how many people a read may show
// changed.
func (b *builder) enrichChange(e *config.Enrich, bp blockPeople, certain []*state.Person, bound int, runSources []string, changing int) *Change {
	cpe := b.creditsPerEnrich()
	c := &Change{
		Address: e.Address, Kind: kind.Enrich, Action: Enrich, Reason: ReasonPeople,
		Calls: len(certain), CallsMax: bound,
		Credits: len(certain) * cpe, CreditsMax: bound * cpe,
		PersonIDs: personIDs(certain),
	}
	for _, p := range certain {
		if b.v.unknownOf(p, e.Address) {
			c.UnknownOutcomes++
		}
	}
	c.Reuses = len(bp.reused)
	c.Detail = enrichDetail(e, bp, c, runSources, b.v.used(e), changing)
	if n := c.UnknownOutcomes; n > 0 {
		c.Detail += fmt.Sprintf("; %s with an unknown outcome from the last run: re-enriching may cost %s more %s",
			plural(n, "enrichment", "enrichments"), thousands(n*cpe), map[bool]string{true: "credit", false: "credits"}[n*cpe == 1])
	}
	if bound == 0 && c.Reuses == 0 {
		c.Action = None
		c.Reason = ReasonUpToDate
		if e.Limit > 0 && b.v.ownedBy(e.Address)+b.v.erasedBy(e.Address) >= e.Limit && len(bp.todo) > 0 {
			c.Reason = ReasonLimitReached
		}
	}
	return c
}

// limited reports whether an enrich block of the plan has a limit: only
// then does the plan count the people each block owns (env.ownedList).
func (b *builder) limited() bool {
	for _, e := range b.cfg.Enriches {
		if e.Limit > 0 && b.selected(e.Address) {
			return true
		}
	}
	return false
}

// creditsPerEnrich is what one enrichment costs (at least 1).
func (b *builder) creditsPerEnrich() int {
	if cpe := b.cfg.API.CreditsPerEnrich; cpe > 0 {
		return cpe
	}
	return 1
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
func (u *enrichUnion) add(bp blockPeople, changing, restFresh []*state.Person, flips int, runSources []string, bound int) {
	for _, a := range runSources {
		u.sources[a] = true
	}
	if u.shared {
		for _, p := range bp.todo {
			u.todo[p.ID] = true
		}
		for _, p := range changing {
			u.todo[p.ID] = true
		}
		for _, p := range bp.failing {
			u.failing[p] = true
		}
		for _, p := range restFresh {
			u.fresh[p] = true
		}
	} else {
		u.todoN, u.flipsN = len(bp.todo)+len(changing), flips
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
		union = len(u.todo)
		read, rest := 0, 0
		for p := range u.failing {
			if !u.todo[p.ID] {
				switch b.changedBy(p) {
				case byRead:
					read++
				case bySearch:
					rest++
				}
			}
		}
		for p := range u.fresh {
			if !u.todo[p.ID] && !u.failing[p] {
				rest++
			}
		}
		union += read + u.flips(rest)
	}
	for a := range u.sources {
		union += u.running[a] + u.importNew[a]
	}
	return min(u.sumMax, union)
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
	other := time.Duration(0) // the shortest refresh of any other block
	var otherOn []*config.Enrich
	for _, o := range b.cfg.Enriches {
		if o == e {
			continue
		}
		if o.Refresh > 0 && (other == 0 || o.Refresh < other) {
			other = o.Refresh
		}
		if len(o.RefreshOn) > 0 {
			otherOn = append(otherOn, o)
		}
	}
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

// searchesRun reports whether a search or profile of the plan runs.
func (b *builder) searchesRun() bool {
	for _, n := range b.running {
		if n > 0 {
			return true
		}
	}
	return false
}

// mayChange returns the people of fresh (enriched, not due) whose change
// of a field of e's refresh_on a call of this run may find: those a read
// of this run reads or an import of this plan names (read), and the
// others, whom a search that runs may find changed (rest: at most as many
// as the running sources bring, which the caller bounds).
func (b *builder) mayChange(e *config.Enrich, fresh []*state.Person) (read, rest []*state.Person) {
	if len(e.RefreshOn) == 0 {
		return nil, nil
	}
	return b.byRead(fresh)
}

// What may change a person in this run (changedBy).
const (
	byNone   = iota // nothing: left the network, and no read reads them
	byRead          // a read of this run or an import of this plan
	bySearch        // only a search that runs
)

// changedBy tells what of this run may change p: a read of a track or a
// profile block that reads them (any change: a new job, a profile back
// from private or gone), an import of this plan that names them (it fills
// in what the state lacks of them), or else only a search that runs. A
// search or an import shows no profile, so nothing but a read changes
// someone who left the network.
func (b *builder) changedBy(p *state.Person) int {
	switch {
	case b.readNow(p):
		return byRead
	case p.Status == state.StatusLeft:
		return byNone
	case b.v.importNames(p):
		return byRead
	}
	return bySearch
}

// byRead splits people by changedBy: those a read or an import of this
// run changes, and those only a search may.
func (b *builder) byRead(people []*state.Person) (read, rest []*state.Person) {
	for _, p := range people {
		switch b.changedBy(p) {
		case byRead:
			read = append(read, p)
		case bySearch:
			rest = append(rest, p)
		}
	}
	return read, rest
}

// countByRead counts what byRead would return, without the lists: cheap
// when nothing of this run reads anyone.
func (b *builder) countByRead(people []*state.Person) (read, rest int) {
	quiet := len(b.tracked) == 0 && len(b.reads) == 0 && len(b.v.pendingIDs) == 0
	for _, p := range people {
		by := bySearch
		if !quiet {
			by = b.changedBy(p)
		} else if p.Status == state.StatusLeft {
			by = byNone
		}
		switch by {
		case byRead:
			read++
		case bySearch:
			rest++
		}
	}
	return read, rest
}

// readNow reports whether a read of this run (a track's or a profile
// block's) reads p.
func (b *builder) readNow(p *state.Person) bool {
	return b.tracked[p] != "" || (len(b.reads) > 0 && p.Lead.PageName != "" && b.reads[api.PageKey(p.Lead.PageName)] != "")
}

// enrichDetail explains an enrich change; changing are the people a read
// of this run may show changed (refresh_on).
func enrichDetail(e *config.Enrich, bp blockPeople, c *Change, runSources []string, owned, changing int) string {
	var parts []string
	switch {
	case c.CallsMax == 0 && e.Limit > 0 && owned >= e.Limit && len(bp.todo) > 0:
		parts = append(parts, fmt.Sprintf("limit %s reached (%s not enriched)", thousands(e.Limit), plural(len(bp.todo), "person", "people")))
	case c.CallsMax == 0 && bp.enriched > len(bp.reused):
		parts = append(parts, fmt.Sprintf("%s of its sources enriched", plural(bp.enriched-len(bp.reused), "person", "people")))
	case c.CallsMax == 0 && len(bp.reused) == 0:
		parts = append(parts, "0 people of its sources enriched")
	case c.CallsMax == 0:
		// Only copies from other workspaces: said below.
	case c.Calls == c.CallsMax:
		parts = append(parts, plural(c.Calls, "person", "people"))
	default:
		from := "from searches that will run"
		imports := 0
		for _, a := range runSources {
			if state.IsImport(a) {
				imports++
			}
		}
		switch {
		case imports > 0 && imports == len(runSources):
			from = "new to the state from imports"
		case imports > 0:
			from = "from searches that will run and imports"
		}
		// The enrichments again that the reads of this run may cause
		// (refresh_on): known only once the reads are in.
		again := fmt.Sprintf("again if the reads of this run find a new %s (refresh_on)", strings.Join(e.RefreshOn, " or "))
		switch {
		case len(runSources) == 0 && changing > 0:
			from = again
		case len(runSources) == 0:
			// Only people already known, whose leads or enrichments other
			// calls of the run may change.
			from = "as the run updates known people"
		case changing > 0:
			from += ", or " + again
		}
		if c.Calls == 0 {
			parts = append(parts, fmt.Sprintf("up to %s %s", thousands(c.CallsMax), from))
		} else {
			parts = append(parts, fmt.Sprintf("%s known + up to %s %s", thousands(c.Calls), thousands(c.CallsMax-c.Calls), from))
		}
	}
	if bp.former > 0 && c.Calls > 0 {
		parts = append(parts, fmt.Sprintf("%s no longer in its sources, enriched again for a new %s (refresh_on)",
			thousands(min(bp.former, c.Calls)), strings.Join(e.RefreshOn, " or ")))
	}
	if e.Limit > 0 && c.CallsMax > 0 {
		parts = append(parts, fmt.Sprintf("limit %s, %s used", thousands(e.Limit), thousands(owned)))
	}
	if len(bp.reused) > 0 {
		parts = append(parts, reusedText(bp.reused))
	}
	if n := len(bp.excluded); n > 0 {
		parts = append(parts, thousands(n)+" excluded")
	}
	return strings.Join(parts, "; ")
}

// retention plans the removal of the people no search or profile read has
// seen for leadsync { retention }: one forget change for them all, first,
// so that apply removes them before anything else and the enrich blocks
// planned after it leave them out. A plan limited by targets removes
// nobody.
func (b *builder) retention() {
	r := b.cfg.Settings.Retention
	if r <= 0 || b.sel != nil {
		return
	}
	ids := b.st.Expired(r, b.now)
	if len(ids) == 0 {
		return
	}
	b.v.gone = make(map[*state.Person]bool, len(ids))
	for _, id := range ids {
		b.v.gone[b.st.People[id]] = true
	}
	b.add(&Change{
		Address: state.PeopleAddress, Kind: kind.People, Action: Forget, Reason: ReasonRetention,
		PersonIDs: ids,
		Detail: fmt.Sprintf("%s not seen by any search for %s (retention) %s the state with their enrichments",
			plural(len(ids), "person", "people"), retentionText(r), map[bool]string{true: "leaves", false: "leave"}[len(ids) == 1]),
	})
}

// retentionText writes a retention as it is usually configured: whole days
// as "180d", else the duration's own form.
func retentionText(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return config.FormatDuration(d)
}

// forgets plans the addresses state has and the configuration does not.
func (b *builder) forgets() {
	known := map[string]bool{}
	for _, s := range b.cfg.Searches {
		known[s.Address] = true
	}
	for _, p := range b.cfg.Profiles {
		known[p.Address] = true
	}
	for _, im := range b.cfg.Imports {
		known[im.Address] = true
	}
	for _, addr := range b.stateAddresses() {
		if known[addr] || !b.selected(addr) {
			continue
		}
		c := &Change{Address: addr, Action: Forget, Reason: ReasonRemoved}
		switch {
		case state.IsImport(addr):
			c.Kind = kind.Import
			n := 0
			if rec := b.st.Imports[addr]; rec != nil {
				n = len(rec.PersonIDs)
			}
			c.Detail = fmt.Sprintf("its %s leave the exports; their e-mails are kept", plural(n, "person", "people"))
		case address.Kind(addr) == kind.Search:
			c.Kind = kind.Search
			n := 0
			if rec := b.st.Searches[addr]; rec != nil {
				n = len(rec.LeadIDs)
			}
			c.Detail = fmt.Sprintf("its %s leave the exports; enrichments are kept", plural(n, "lead", "leads"))
		default:
			c.Kind = kind.Profile
			c.Detail = "its person leaves the exports; enrichments are kept"
		}
		switch {
		case b.st.Searches[addr] == nil && b.st.Splits[addr] != nil:
			c.Detail = "only a split run stopped in the middle is recorded; its people leave no export"
		case b.st.Searches[addr] == nil && b.st.Profiles[addr] == nil && b.st.Imports[addr] == nil:
			c.Detail = "only a failed attempt is recorded"
		}
		b.add(c)
	}
}

// exports plans the export files. Each is written, for the first reason
// that holds: a file is missing; the plan changes the state; the working
// copy has no record of writing it; its configuration (ExportDigest)
// changed since; the state it was written from is not the state now
// (forget, state rm, a teammate's apply on a shared state). Otherwise it
// is up to date.
func (b *builder) exports() {
	changes := false
	for _, c := range b.p.Changes {
		if c.Action != None {
			changes = true
		}
	}
	exists := b.opts.FileExists
	if exists == nil {
		exists = func(p string) bool { _, err := os.Stat(p); return err == nil }
	}
	record := b.opts.ExportRecord
	if record == nil {
		record = func(string) *ExportRecord { return nil }
	}
	mark := b.st.DataMarkIn(b.cfg.Workspace)
	for _, x := range b.cfg.Exports {
		if !b.selected(x.Address) {
			continue
		}
		missing := ""
		data, summary := x.Files()
		if summary != "" {
			data = append(data, summary)
		}
		for _, f := range data {
			path := f
			if !filepath.IsAbs(path) && b.cfg.Dir != "" {
				path = filepath.Join(b.cfg.Dir, path)
			}
			if !exists(path) {
				missing = f
				break
			}
		}
		c := &Change{Address: x.Address, Kind: kind.Export, Action: Write, Path: x.Path}
		rec := record(x.Address)
		switch {
		case missing != "":
			c.Reason, c.Detail = ReasonFileMissing, missing+" (missing)"
		case changes:
			c.Reason, c.Detail = ReasonStateChanges, x.Path
		case rec == nil:
			c.Reason, c.Detail = ReasonNoRecord, "no record of the last write of "+x.Path
		case rec.ConfigDigest == "" || rec.ConfigDigest != b.cfg.ExportDigest(x):
			c.Reason, c.Detail = ReasonConfigChanged, "configuration changed since "+x.Path+" was written"
		case !rec.From.Equal(mark):
			c.Reason, c.Detail = ReasonStateNewer, "state changed since "+x.Path+" was written"
		default:
			c.Action, c.Reason, c.Detail = None, ReasonUpToDate, x.Path
		}
		b.add(c)
	}
}

// forgetsMost notes a plan that forgets more than half of the searches
// and profile reads the state holds.
func (b *builder) forgetsMost() {
	held := len(b.st.Searches) + len(b.st.Profiles)
	forgotten := 0
	for _, c := range b.p.Changes {
		if c.Action != Forget {
			continue
		}
		if _, ok := b.st.Searches[c.Address]; ok {
			forgotten++
		} else if _, ok := b.st.Profiles[c.Address]; ok {
			forgotten++
		}
	}
	if held > 0 && 2*forgotten > held {
		b.p.ForgetsMost = &ForgetsMost{Forgotten: forgotten, Held: held}
	}
}

// totals sums the changes and bounds the duration.
func (b *builder) totals() {
	b.forgetsMost()
	t := &b.p.Totals
	cpe := b.creditsPerEnrich()
	for _, c := range b.p.Changes {
		t.Calls += c.Calls
		t.Credits += c.Credits
		switch {
		case c.Action == Forget:
			t.Forgets++
		case c.Action == Update:
			t.Updates++
		case c.Action == Moved:
			t.Moves++
		case c.Action == Write:
			t.Writes++
		case c.Action == Import:
			t.Imports++
		case c.Kind == kind.Enrich:
			t.Enrichments += c.Calls
			t.Reuses += c.Reuses
		case c.Kind == kind.Search:
			t.Searches += c.Calls
			t.SearchesMax += c.CallsMax
		case c.Kind == kind.Profile:
			t.Profiles += c.Calls
		case c.Kind == kind.Track:
			t.Tracks += c.Calls
		}
	}
	t.EnrichmentsMax = b.enrichMax
	if t.EnrichmentsMax < t.Enrichments {
		t.EnrichmentsMax = t.Enrichments
	}
	t.CallsMax = t.SearchesMax + t.Profiles + t.Tracks + t.EnrichmentsMax
	t.CreditsMax = t.EnrichmentsMax * cpe
	// The monthly quota applies to the first generation (spec section 8):
	// enrich exists only there; searches and profile reads use it when
	// api.generation is 1.
	t.QuotaCalls, t.QuotaCallsMax = t.Enrichments, t.EnrichmentsMax
	if b.searchesUseQuota() {
		// Track reads are profile reads.
		t.QuotaCalls += t.Searches + t.Profiles + t.Tracks
		t.QuotaCallsMax += t.SearchesMax + t.Profiles + t.Tracks
	}
	t.RateLimit = b.cfg.API.RateLimit
	if t.RateLimit <= 0 {
		t.RateLimit = 1
	}
	t.Parallelism = b.cfg.API.Parallelism
	if t.Parallelism <= 0 {
		t.Parallelism = 1
	}
	t.DurationSecondsMax = durationMax(t.SearchesMax, t.CallsMax-t.SearchesMax, t.RateLimit, t.Parallelism)
}

// durationMax bounds the wall time of a run, in whole seconds. Calls start at
// most rate per second. A search holds one of the parallelism slots for up to
// SearchLatency, so searches also go no faster than parallelism per
// SearchLatency; the other calls are counted at the rate only (the spec gives
// them no latency). The last search may finish SearchLatency after it started.
func durationMax(searches, others int, rate float64, par int) int {
	if searches+others == 0 {
		return 0
	}
	lat := SearchLatency.Seconds()
	s := float64(searches) / rate
	if batches := (searches + par - 1) / par; batches > 1 {
		s = math.Max(s, float64(batches-1)*lat)
	}
	d := s + float64(others)/rate
	if searches > 0 {
		d += lat
	}
	return int(math.Ceil(d))
}

// searchesUseQuota reports whether the plan's searches and profile reads
// go to the first generation, whose calls use the monthly quota.
func (b *builder) searchesUseQuota() bool { return b.cfg.API.Generation != api.Gen2 }

// quota checks the monthly quota and the credit cap. Only the calls that
// use the quota (Totals.QuotaCallsMax) count against the requests left.
func (b *builder) quota() {
	q := &b.p.Quota
	t := b.p.Totals
	api := b.cfg.API
	q.MinRemainingRequests = api.MinRemainingRequests
	q.MaxCredits = api.MaxCredits
	switch {
	case b.opts.Usage != nil:
		rem := b.opts.Usage.RemainingRequests
		after := rem - t.QuotaCallsMax
		q.RemainingRequests, q.After, q.Checked = &rem, &after, true
		if t.QuotaCallsMax > 0 && after < api.MinRemainingRequests {
			calls := "calls"
			if t.QuotaCallsMax < t.CallsMax {
				calls = "first-generation calls (the second generation's use none)"
			}
			b.diags = append(b.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "The plan could leave too few requests this month",
				Detail: fmt.Sprintf("The service has %s requests left this month; this plan may make up to %s %s, leaving %s, below min_remaining_requests = %s.\n\n%s\n%s",
					thousands(rem), thousands(t.QuotaCallsMax), calls, thousands(after), thousands(api.MinRemainingRequests), b.costBreakdown(false), b.quotaAdvice(after)),
				Subject: rangePtr(api.DeclRange),
			})
		}
	case b.opts.Offline:
		q.Note = "not checked (--offline)"
	case api.Generation == 2 && api.BaseURL == "":
		q.Note = "not checked (the second generation has no usage operation)"
	default:
		q.Note = "not checked"
	}
	if !q.Checked && b.st.Usage.RemainingRequests != nil && b.st.Usage.CheckedAt != nil {
		q.Note += fmt.Sprintf("; %s requests were left when last checked %s", thousands(*b.st.Usage.RemainingRequests), ago(b.now, *b.st.Usage.CheckedAt))
	}
	if t.CreditsMax > api.MaxCredits && t.CreditsMax > 0 {
		b.diags = append(b.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "The plan could spend more credits than max_credits",
			Detail: fmt.Sprintf("This plan may spend up to %s credits; max_credits = %s.\n\n%s\nSet or lower limit on the enrich blocks, lower max_results of their searches, plan part of the work with --target, or raise max_credits in the api block.",
				thousands(t.CreditsMax), thousands(api.MaxCredits), b.costBreakdown(true)),
			Subject: rangePtr(api.DeclRange),
		})
	}
}

// creditBalance compares the credits the plan may spend with the balance
// the last enrichment reported. The service has no operation to read the
// balance without spending, so it may have been topped up since: a plan
// that needs more is a warning, never an error (docs/decisions.md).
func (b *builder) creditBalance() {
	u := b.st.Usage
	if u.CreditBalance == nil {
		return
	}
	t := b.p.Totals
	bal := *u.CreditBalance
	after := bal - t.CreditsMax
	cb := &b.p.Credits
	cb.Balance, cb.After = &bal, &after
	when := "at an unknown time"
	if u.CreditBalanceAt != nil {
		at := u.CreditBalanceAt.UTC()
		cb.CheckedAt = &at
		when = ago(b.now, at)
	}
	if t.CreditsMax <= bal {
		return
	}
	summary := "The plan needs more credits than were left at the last enrichment"
	var spend string
	switch {
	case t.Credits > bal && t.Credits == t.CreditsMax:
		spend = fmt.Sprintf("this plan spends %s", plural(t.Credits, "credit", "credits"))
	case t.Credits > bal:
		spend = fmt.Sprintf("this plan spends at least %s, up to %s", plural(t.Credits, "credit", "credits"), thousands(t.CreditsMax))
	default:
		summary = "The plan may need more credits than were left at the last enrichment"
		spend = fmt.Sprintf("this plan may spend up to %s", plural(t.CreditsMax, "credit", "credits"))
		if t.Credits > 0 {
			spend += fmt.Sprintf(" (%s certain)", thousands(t.Credits))
		}
	}
	b.diags = append(b.diags, &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  summary,
		Detail: fmt.Sprintf("The last enrichment, %s, left a balance of %s; %s.\n\n"+
			"Unless the balance has been topped up since, apply stops at the first enrichment the service refuses (403 Forbidden) and keeps everything done before it. "+
			"The service reports the balance only in the answer of an enrichment, so leadsync cannot check it before apply. "+
			"If you have topped up the enrich credits since, apply as planned; otherwise top them up with the service's operator first, "+
			"or leave the enrichments out of this run (--target the searches and profiles).",
			when, plural(bal, "credit", "credits"), spend),
	})
}

// costBreakdown lists what each block may cost, the largest first: searches
// and profiles grouped by block. Calls are those that use the monthly quota.
func (b *builder) costBreakdown(credits bool) string {
	type cost struct {
		block     string
		instances int
		n         int
		known     int
	}
	byBlock := map[string]*cost{}
	var order []*cost
	for _, c := range b.p.Changes {
		n, known := c.CallsMax, c.Calls
		if credits {
			n, known = c.CreditsMax, c.Credits
		} else if c.Kind != kind.Enrich && !b.searchesUseQuota() {
			continue // a second-generation call: no quota
		}
		if n == 0 {
			continue
		}
		blk := blockOf(c.Address)
		k := byBlock[blk]
		if k == nil {
			k = &cost{block: blk}
			byBlock[blk] = k
			order = append(order, k)
		}
		k.instances++
		k.n += n
		k.known += known
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].n > order[j].n })
	unit := "call"
	if credits {
		unit = "credit"
	}
	var sb strings.Builder
	sb.WriteString("What each block may cost:\n")
	for _, k := range order {
		what := plural(k.n, unit, unit+"s")
		if k.known < k.n {
			what = "up to " + what
			if k.known > 0 {
				what += fmt.Sprintf(" (%s certain)", thousands(k.known))
			}
		}
		inst := ""
		if k.instances > 1 {
			inst = fmt.Sprintf(" (%d instances)", k.instances)
		}
		fmt.Fprintf(&sb, "  %s%s: %s\n", k.block, inst, what)
	}
	if credits {
		if b.enrichMax < sumEnrichMax(b.p.Changes) {
			fmt.Fprintf(&sb, "  (people shared by several blocks are counted once in the total: up to %s enrichments)\n", thousands(b.enrichMax))
		}
	}
	return sb.String()
}

func sumEnrichMax(cs []*Change) int {
	n := 0
	for _, c := range cs {
		if c.Kind == kind.Enrich {
			n += c.CallsMax
		}
	}
	return n
}

func rangePtr(r hcl.Range) *hcl.Range {
	if r.Filename == "" {
		return nil
	}
	return &r
}
