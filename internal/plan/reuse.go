package plan

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/state"
)

// ReuseLookup returns, for each key (state.LookupKeys of a person), the
// newest enrichment another workspace of the backend holds of them
// (backend.CrossWorkspace). Nil: the backend's workspaces share nothing.
type ReuseLookup func(keys []string) (map[string]state.Reusable, error)

// ReusedSaving counts the people the enrich blocks would have enriched
// whose enrichment another workspace of the backend already paid for: it
// is copied, at no credit.
type ReusedSaving struct {
	People     int              `json:"people"`
	Credits    int              `json:"credits"`
	Workspaces []WorkspaceReuse `json:"workspaces"`
}

// WorkspaceReuse is how many enrichments one workspace gives.
type WorkspaceReuse struct {
	Workspace string `json:"workspace"`
	People    int    `json:"people"`
}

// reusedPerson is a person whose enrichment is copied from another
// workspace instead of paid for.
type reusedPerson struct {
	p *state.Person
	r state.Reusable
}

// Reuse is one enrichment apply copies: the person and what another
// workspace holds of them.
type Reuse struct {
	PersonID string
	From     state.Reusable
}

// reusable returns what another workspace holds of p that e may reuse:
// fresh for e's refresh, and newer than what p holds.
func (v *env) reusable(e *config.Enrich, p *state.Person) (state.Reusable, bool) {
	if len(v.reuse) == 0 {
		return state.Reusable{}, false
	}
	var best state.Reusable
	found := false
	for _, k := range state.LookupKeys(p) {
		if r, ok := v.reuse[k]; ok && (!found || r.Enrichment.EnrichedAt.After(best.Enrichment.EnrichedAt)) {
			best, found = *r, true
		}
	}
	if !found {
		return state.Reusable{}, false
	}
	if e.Refresh > 0 && v.now.Sub(best.Enrichment.EnrichedAt) >= e.Refresh {
		return state.Reusable{}, false
	}
	if p.Enrichment != nil && !p.Enrichment.EnrichedAt.Before(best.Enrichment.EnrichedAt) {
		return state.Reusable{}, false
	}
	if !v.sameEmployer(p, best) {
		// Enriched there at a company they have left: its e-mail is
		// their former employer's, no current one.
		return state.Reusable{}, false
	}
	return best, true
}

// sameEmployer reports whether the enrichment r was made while p worked at
// the company p works at now (their lead's company, which every search
// and read renews). Where this workspace's enrichments tell that company's
// domain (an enrichment names its company and that company's domain), r
// must have been made at one of those domains; where none does, r's
// company must be p's now (names compared as exclude blocks compare
// them: case, spaces, legal forms). A person whose company is not known
// here is not reused: nothing says the e-mail is still theirs.
func (v *env) sameEmployer(p *state.Person, r state.Reusable) bool {
	now := v.employers().companyKey(p.Lead.Company)
	if now == "" {
		return false
	}
	if known := v.employers().domains(v.st)[now]; len(known) > 0 {
		d, _ := listfile.DomainKey(r.Enrichment.Result.CompanyDomain)
		return d != "" && slices.Contains(known, d)
	}
	return v.employers().companyKey(r.Enrichment.Result.Company) == now
}

// employers knows the company domains of one workspace's enrichments, by
// company key, gathered on first need (one pass over the people, only
// when another workspace has an enrichment to copy), and memoises
// company keys.
type employers struct {
	byCompany map[string][]string
	keys      map[string]string
}

func (v *env) employers() *employers {
	if v.emp == nil {
		v.emp = &employers{}
	}
	return v.emp
}

func (m *employers) companyKey(s string) string {
	if s == "" {
		return ""
	}
	if m.keys == nil {
		m.keys = map[string]string{}
	}
	k, ok := m.keys[s]
	if !ok {
		k = listfile.CompanyKey(s)
		m.keys[s] = k
	}
	return k
}

func (m *employers) domains(st *state.State) map[string][]string {
	if m.byCompany != nil {
		return m.byCompany
	}
	m.byCompany = map[string][]string{}
	for _, p := range st.People {
		if p == nil || p.Enrichment == nil {
			continue
		}
		m.learn(p.Enrichment.Result.Company, p.Enrichment.Result.CompanyDomain)
	}
	return m.byCompany
}

// learn records that company has the domain (from an enrichment recorded
// in this run); nothing until the domains were gathered.
func (m *employers) learn(company, domain string) {
	if m.byCompany == nil {
		return
	}
	ck := m.companyKey(company)
	d, _ := listfile.DomainKey(domain)
	if ck == "" || d == "" || slices.Contains(m.byCompany[ck], d) {
		return
	}
	m.byCompany[ck] = append(m.byCompany[ck], d)
}

// lookupReuse asks the other workspaces, once, about the people of the
// blocks' sources who need an enrichment and have not been asked about.
func (v *env) lookupReuse(blocks []*config.Enrich, skipSource func(string) bool) error {
	if v.reuse == nil {
		v.reuse = answers{}
		v.asked = map[string]bool{}
	}
	if v.lookup == nil {
		return nil
	}
	v.reuseEmployers()
	var keys []string
	for _, e := range blocks {
		for _, addr := range v.cfg.Resolve(e.From) {
			if skipSource != nil && skipSource(addr) {
				continue
			}
			for _, id := range v.sourcePeople(addr).All() {
				if p := v.person(id); p != nil && v.asksAbout(e, p) {
					keys = v.unaskedKeys(keys, p)
				}
			}
		}
	}
	return v.askKeys(keys)
}

// asksAbout reports whether lookupReuse asks the other workspaces about
// p for e: p has a page name, needs an enrichment, and may be held
// elsewhere (reuseAsk).
func (v *env) asksAbout(e *config.Enrich, p *state.Person) bool {
	return p.Lead.PageName != "" && v.needsEnrich(e, p) && v.reuseAsk(p)
}

// unaskedKeys appends to keys those of p's lookup keys not asked about
// yet, and notes them asked.
func (v *env) unaskedKeys(keys []string, p *state.Person) []string {
	for _, k := range state.LookupKeys(p) {
		if !v.asked[k] {
			v.asked[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// askKeys asks the other workspaces about keys, keeping their answers
// (env.reuse); nothing without other workspaces (env.lookup nil).
func (v *env) askKeys(keys []string) error {
	if len(keys) == 0 || v.lookup == nil {
		return nil
	}
	found, err := v.lookup(keys)
	if err != nil {
		return fmt.Errorf("reading the enrichments of the other workspaces: %w", err)
	}
	v.reuse.keep(found)
	return nil
}

// reusedSavings counts, over the planned enrich blocks' people, those
// whose enrichment is copied from another workspace.
func (b *builder) reusedSavings(people []blockPeople, cpe int) {
	seen := map[string]bool{} // by ID: blocks over a partial state may meet one person read twice
	byWS := map[string]int{}
	n := 0
	for _, bp := range people {
		for _, r := range bp.reused {
			if id := r.p.ID; !seen[id] {
				seen[id] = true
				n++
				byWS[r.r.Workspace]++
			}
		}
	}
	rs := ReusedSaving{People: n, Credits: n * cpe, Workspaces: []WorkspaceReuse{}}
	for ws, k := range byWS {
		rs.Workspaces = append(rs.Workspaces, WorkspaceReuse{Workspace: ws, People: k})
	}
	sort.Slice(rs.Workspaces, func(i, j int) bool { return rs.Workspaces[i].Workspace < rs.Workspaces[j].Workspace })
	b.p.Savings.Reused = rs
	b.p.Savings.CreditsMax += rs.Credits
}

// reusedText says what a block reuses: "reuses 37 enrichments from
// workspace dach (0 credits)".
func reusedText(rs []reusedPerson) string {
	byWS := map[string]int{}
	for _, r := range rs {
		byWS[r.r.Workspace]++
	}
	names := make([]string, 0, len(byWS))
	for ws := range byWS {
		names = append(names, ws)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, ws := range names {
		parts[i] = fmt.Sprintf("%s from workspace %s", plural(byWS[ws], "enrichment", "enrichments"), ws)
	}
	return "reuses " + strings.Join(parts, ", ") + " (0 credits)"
}

// Reuses returns the people of e whose enrichment apply copies from
// another workspace now, before it claims anyone: those of e's sources
// who need an enrichment, pass where and are not excluded, and whom
// another workspace holds a fresh enrichment of. The other workspaces are
// asked about each person once per run. Only the people they answered for
// are looked at (collectReused). Over a partial state, the people held
// elsewhere it has not read are read as they are met, while the copies
// leave places (readHeldMet); with a where, the people of the lead lists
// of the sources the plan ran are read first (readRunsWhere).
func (c *Candidates) Reuses(st *state.State, e *config.Enrich, now time.Time) ([]Reuse, error) {
	if c.lookup == nil {
		return nil, nil
	}
	// Each block's pages start small (nextHeldPage): one carried over
	// from the block before reads more people held than e's copies need.
	// That costs reads only, with no test: the copies are the same.
	c.heldPage = 0
	if err := c.readRunsWhere(st, e, now); err != nil {
		return nil, err
	}
	for {
		v := c.env(st, now)
		bp, err := v.reusedOf(e)
		if err != nil {
			return nil, err
		}
		if more, err := c.readHeldMet(v, e, bp.reused); err != nil || !more {
			return reusesOf(bp), err
		}
	}
}

// reusedOf are the people of e whose enrichment is copied (bp.reused),
// from collectReused, or collect where it cannot tell.
func (v *env) reusedOf(e *config.Enrich) (blockPeople, error) {
	bp, ok, err := v.collectReused(e)
	if err == nil && !ok {
		if err = v.lookupReuse([]*config.Enrich{e}, nil); err == nil {
			bp, err = v.collect(e, nil, true)
		}
	}
	return bp, err
}

// reusesOf are the copies of bp, in order.
func reusesOf(bp blockPeople) []Reuse {
	out := make([]Reuse, len(bp.reused))
	for i, r := range bp.reused {
		out[i] = Reuse{PersonID: r.p.ID, From: r.r}
	}
	return out
}

// Recheck asks the other workspaces again about the person id, whom
// another workspace's apply has just enriched (or held, and ended), and
// returns what e may copy of them now: fresh for e's refresh and newer
// than what they hold. Unlike Reuses it asks even about a person already
// asked about in this run.
func (c *Candidates) Recheck(st *state.State, e *config.Enrich, id string, now time.Time) (Reuse, bool, error) {
	p := st.Person(id)
	if c.lookup == nil || p == nil {
		return Reuse{}, false, nil
	}
	keys := state.LookupKeys(p)
	found, err := c.lookup(keys)
	if err != nil {
		return Reuse{}, false, fmt.Errorf("reading the enrichments of the other workspaces: %w", err)
	}
	for _, k := range keys {
		c.asked[k] = true
		if r, ok := found[k]; ok {
			c.reuse[k] = &r
		}
	}
	r, ok := c.env(st, now).reusable(e, p)
	return Reuse{PersonID: p.ID, From: r}, ok, nil
}
