package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

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
	blocks, people, certains, ok := b.enrichClaims()
	if !ok {
		return
	}
	cpe := b.creditsPerEnrich()
	// What a block could have spent bounds what it saves: the copies take
	// their places first (placeCopies), the people it pays for theirs;
	// the imports' e-mails, then the people excluded, save at most the
	// places left.
	places := b.v.spendablePlaces(blocks, certains)
	b.reusedSavings(people, cpe)
	b.importedSavings(people, places, cpe)
	b.excludedSavings(people, places, cpe)
	u := newEnrichUnion(b.running, b.importNew, len(blocks) > 1)
	freed := b.v.freedPlaces(blocks, certains)
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
		changing.people = append(changing.people, formerChanging.people...)
		changing.sketched = bp.sketched
		rest := restFailing + len(restFresh) + len(restFormer) + bp.freshUnread
		if bp.countFormer != nil && rest < u.runningAll {
			// Past what the running sources bring they change nothing.
			bp.formerUnreadIDs = bp.countFormer()
			bp.formerUnread, bp.countFormer = len(bp.formerUnreadIDs), nil
		}
		flips := readFlips + u.flips(rest+bp.formerUnread)
		// When no source of the plan runs, no import brings anyone new and
		// no call may show a change, nothing apply learns can change who
		// is enriched: the bound is the certain count itself.
		bound := len(certain)
		bounded := u.runningAll > 0 || src.people > 0 || changing.len() > 0 || flips > 0
		if bounded {
			b.countUnread(e, &bp, changing, src.people, flips)
			bound = b.enrichBound(e, bp, changing, len(certain), src.people, flips)
		}
		b.checkRead(e, bp, bound, changing, src.people, flips, bounded)
		u.add(b, bp, changing, slices.Concat(restFresh, restFormer), flips, src.addrs, bound)
		c := b.enrichChange(e, bp, certain, bound, src.addrs, changing.len())
		if e.Limit > 0 {
			c.places = e.Limit - b.v.used(e) + freed[i]
		}
		b.add(c)
	}
	b.enrichMax = b.unionBound(u, blocks, people)
}

// freedPlaces counts, per block with a limit, the places the other
// blocks give back to it in the claims (claimRounds): the people they
// enrich for sure (certains) who hold one of its places. Within may lend
// a block them (loans.room).
func (v *env) freedPlaces(blocks []*config.Enrich, certains [][]member) []int {
	freed := make([]int, len(blocks))
	if len(blocks) < 2 {
		return freed
	}
	for j, certain := range certains {
		for _, m := range certain {
			for k, e := range blocks {
				if k != j && e.Limit > 0 && v.holdsPlace(e, m) {
					freed[k]++
				}
			}
		}
	}
	return freed
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
	b.v.facts.noteRuns(b.running)
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

// enrichChange is the change of enrich block e: certain are the people it
// enriches for sure, bound the most it may, runSources its sources that
// run or import new people, changing how many people a read may show
// changed.
func (b *builder) enrichChange(e *config.Enrich, bp blockPeople, certain []member, bound int, runSources []string, changing int) *Change {
	cpe := b.creditsPerEnrich()
	c := &Change{
		Address: e.Address, Kind: kind.Enrich, Action: Enrich, Reason: ReasonPeople,
		Calls: len(certain), CallsMax: bound,
		Credits: len(certain) * cpe, CreditsMax: bound * cpe,
		PersonIDs: b.v.memberIDs(certain),
	}
	for _, id := range c.PersonIDs {
		if b.v.unknownOf(id, e.Address) {
			c.UnknownOutcomes++
		}
	}
	c.Reuses = len(bp.reused)
	used := b.v.used(e)
	c.Detail = enrichDetail(e, bp, c, runSources, used, changing)
	if n := c.UnknownOutcomes; n > 0 {
		c.Detail += fmt.Sprintf("; %s with an unknown outcome from the last run: re-enriching may cost %s more %s",
			plural(n, "enrichment", "enrichments"), thousands(n*cpe), map[bool]string{true: "credit", false: "credits"}[n*cpe == 1])
	}
	if bound == 0 && c.Reuses == 0 {
		c.Action = None
		c.Reason = ReasonUpToDate
		if e.Limit > 0 && b.v.ownedBy(e.Address)+b.v.erasedBy(e.Address) >= e.Limit && len(bp.todo)+bp.unread > 0 {
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

// mayChange returns the people of fresh (enriched, not due) whose change
// of a field of e's refresh_on a call of this run may find: those a read
// of this run reads or an import of this plan names (read), and the
// others, whom a search that runs may find changed (rest: at most as many
// as the running sources bring, which the caller bounds).
func (b *builder) mayChange(e *config.Enrich, fresh []*state.Person) (read changing, rest []*state.Person) {
	if len(e.RefreshOn) == 0 {
		return changing{}, nil
	}
	read.people, rest = b.byRead(fresh)
	return read, rest
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
	quiet := len(b.tracked) == 0 && b.trackedSketch == nil && len(b.reads) == 0 && len(b.v.pendingIDs) == 0
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
// block's) reads p: held whole, or in sketch by a track (trackedSketchOf).
func (b *builder) readNow(p *state.Person) bool {
	return b.tracked[p] != "" || b.trackedSketchOf(p.ID) || (len(b.reads) > 0 && p.Lead.PageName != "" && b.reads[api.PageKey(p.Lead.PageName)] != "")
}

// enrichDetail explains an enrich change; changing are the people a read
// of this run may show changed (refresh_on).
func enrichDetail(e *config.Enrich, bp blockPeople, c *Change, runSources []string, owned, changing int) string {
	var parts []string
	switch {
	case c.CallsMax == 0 && e.Limit > 0 && owned >= e.Limit && len(bp.todo)+bp.unread > 0:
		// unread: the people to enrich a census counted (countOnly).
		parts = append(parts, fmt.Sprintf("limit %s reached (%s not enriched)", thousands(e.Limit), plural(len(bp.todo)+bp.unread, "person", "people")))
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
