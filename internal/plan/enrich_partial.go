package plan

import (
	"maps"
	"slices"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// An apply of a plan EnrichReadsOf answers runs on a partial state
// (state.Base.Writable): it reads whole the people the plan reads in
// sketch (SketchedIDs), since it may enrich and write them, and those
// the plan's walk found for the places the limit leaves (WalkedIDs). The
// engine's choice of the people to enrich (Candidates.Claimed) counts
// each block's places from the partial state's counts (partialFacts),
// which follow every enrichment folded in; the people not read take no
// place.

// SketchedIDs are the IDs of the people f reads in sketch (Fill): the
// people of the block's stale enrichments and of imported e-mails. An
// apply reads them whole instead (it may enrich them, and a partial state
// writes only people it read).
func (f *EnrichFacts) SketchedIDs() []string {
	if f == nil {
		return nil
	}
	ids := make([]string, len(f.sketches), len(f.sketches)+f.packed.Len())
	for i, p := range f.sketches {
		ids[i] = p.ID
	}
	for i := range f.packed.Len() {
		ids = append(ids, f.packed.ID(i))
	}
	return ids
}

// FillWhole reads whole into st the people f reads in sketch
// (SketchedIDs, and those LetSketchesGo let go). It then fills st with
// the rest (Fill) and lets f's sketches go. st holds each of them now,
// read whole, or as its sketch when the store no longer gives one and it
// was not let go. At 3,000,000 people beside a track and refresh_on, the
// sketches kept beside the people read whole held 48 MB until the first
// call.
func (f *EnrichFacts) FillWhole(st *state.State) error {
	if f == nil {
		return nil
	}
	if err := st.ReadPeople(slices.Concat(f.late, f.SketchedIDs())); err != nil {
		return err
	}
	f.Fill(st)
	f.sketches, f.late = nil, nil
	return nil
}

// WalkedPeople are, by ID, the people not read whom the plan Build made
// with f read whole: for the places the block's limit leaves
// (placesWalk), to enrich from the census (collectCensus), or as people
// held elsewhere met before the copies took the places (heldMet). An
// apply holds them in its partial state as the plan read them
// (State.HoldRead), so that the engine's passes, which count only the
// people read, find them where the plan did. The copies would read the
// people held met too (readHeldMet), but a page at a time, each page
// another collect of the block.
func (f *EnrichFacts) WalkedPeople() map[string]*state.Person {
	if f == nil {
		return nil
	}
	people := map[string]*state.Person{}
	for _, w := range f.walks {
		addRead(people, w.known)
	}
	addRead(people, f.censusRead)
	if f.reuse != nil {
		addRead(people, f.reuse.met)
	}
	return people
}

// addRead adds to people those of read that are not nil.
func addRead(people, read map[string]*state.Person) {
	for id, p := range read {
		if p != nil {
			people[id] = p
		}
	}
}

// WalkedIDs are the IDs of WalkedPeople, sorted.
func (f *EnrichFacts) WalkedIDs() []string {
	return slices.Sorted(maps.Keys(f.WalkedPeople()))
}

// Hold makes st, the partial state of an apply, hold the people the plan
// walked (WalkedPeople) without reading them again. A plan that makes
// moves read them moved, not as the store holds them: st reads them
// again then (State.ReadPeople), to hold them unmoved as HoldRead's doc says.
func (f *EnrichFacts) Hold(st *state.State) error {
	if f != nil && f.moved != nil && len(f.moved.Moves) > 0 {
		return st.ReadPeople(f.WalkedIDs())
	}
	st.HoldRead(f.WalkedPeople())
	return nil
}

// partialFacts are the counts of every enrich block of cfg in st, a
// partial state (nil for a state read whole): the enrichments each block
// made and copied, read people counted as they are now
// (state.EnrichedCounts). Candidates gives them to each pass of the
// engine, as EnrichReadsOf's are given to the plan: the people not read
// take no place (the limit leaves none: checkRead) and count only as
// members.
func partialFacts(cfg *config.Config, st *state.State) *EnrichFacts {
	made, copied, ok := st.EnrichedCounts()
	if !ok {
		return nil
	}
	f := &EnrichFacts{blocks: make(map[string]*enrichCounts, len(cfg.Enriches))}
	for _, e := range cfg.Enriches {
		f.blocks[e.Address] = &enrichCounts{owned: made[e.Address], copies: copied[e.Address], aged: map[time.Duration]int{}}
	}
	return f
}

// noteRuns notes in f, the facts of a plan over a partial state, the
// sources running holds: the searches and profiles the plan runs. The
// plan does not walk their lead lists: the people of a source that runs
// are not known yet. Nothing without facts.
func (f *EnrichFacts) noteRuns(running map[string]int) {
	if f == nil {
		return
	}
	f.runs = make(map[string]bool, len(running))
	for addr := range running {
		f.runs[addr] = true
	}
}

// readPlacesMet reads, over the partial state of v, the next page of
// people not read whom e's lead lists name, in from order (nextPlacesPage).
// It reads while they may change e's claims (out, with held places of e's
// own claims in the run), as the whole state's apply would meet them.
// The plan never walked the lead lists of the sources it ran
// (Candidates.runs). A run that answered folded its people in; one that
// failed left its list as before. Their people are read when the block
// has no limit, when the claims leave places, or when a claim taking a
// place comes after the first of them. The claims may also leave places
// the plan filled (another block claimed their people). The people past
// the plan's walk are read then too, but not those it knew take no place
// (placesWalk.known). None met after as many of e's claims as the calls
// planned for e (WithPlan) is read: the engine pays for no claim past
// those, with or without a limit. more says some were read: the claims
// are to be made again.
func (c *Candidates) readPlacesMet(v *env, e *config.Enrich, out []member, held int) (more bool, err error) {
	if c.placesAsked == nil {
		return false, nil
	}
	places := -1 // no limit
	switch taken := v.placesTaken(e, out); {
	case e.Limit > 0:
		places = max(e.Limit-v.used(e)-held-taken, 0)
		if places == 0 && taken == 0 {
			return false, nil // at the limit: no claim a person met first may take
		}
	case !c.runsIn(v, e):
		return false, nil
	}
	unread, takersAfter := c.placesUnread(v, e, out, c.callsOf(e))
	if len(unread) == 0 || places == 0 && takersAfter == 0 {
		return false, nil
	}
	if n := c.nextPlacesPage(max(places, 0) + takersAfter); n < len(unread) {
		unread = unread[:n] // a page, with or without a limit
	}
	for _, id := range unread {
		c.placesAsked[id] = true
	}
	return true, v.st.ReadPeople(unread)
}

// readRunsWhere reads whole, over the partial state of an apply (st),
// the people st does not hold whom the lead lists of e's sources the plan
// ran name, when e has a where. A where is evaluated on every person of
// e's sources who needs an enrichment, past the places too, as over the
// whole state: the plan evaluated it on the people of the other sources
// (a failure there is the plan's error). A run that answered folded its
// people in; one that failed left its list as before, whose people the
// plan never met.
func (c *Candidates) readRunsWhere(st *state.State, e *config.Enrich, now time.Time) error {
	if e.Where == nil || len(c.runs) == 0 {
		return nil
	}
	v := newEnv(c.cfg, st, now) // its lead lists alone: no counts (c.env)
	var ids []string
	for _, addr := range v.cfg.Resolve(e.From) {
		if !c.runs[addr] {
			continue
		}
		for _, id := range v.sourcePeople(addr).All() {
			if st.People[id] == nil {
				ids = append(ids, id)
			}
		}
	}
	return st.ReadPeople(ids)
}

// runsIn reports whether a source of e is one the plan ran.
func (c *Candidates) runsIn(v *env, e *config.Enrich) bool {
	return slices.ContainsFunc(v.cfg.Resolve(e.From), func(addr string) bool { return c.runs[addr] })
}

// placesUnread are the IDs e's lead lists name whose people v's state
// does not hold and readPlacesMet has not asked for, in from order. They
// are those in the lists of the sources the plan ran. When e has a limit
// and the plan walked its places, they are those in the other lists too,
// but for those the walk knew take no place (the people past the walk).
// They end where e's sources met calls people of out (e's claims), when
// calls is not negative: the claims past those are never paid for. With
// no call planned they end at the first claim.
// takersAfter counts the people of out taking a place whom e's sources
// meet after the first of them.
func (c *Candidates) placesUnread(v *env, e *config.Enrich, out []member, calls int) (unread []string, takersAfter int) {
	if calls == 0 {
		calls = 1 // none is paid for: stop at the first claim
	}
	claims := make(map[string]bool, len(out)) // by ID: a place taken
	for _, m := range out {
		claims[v.memberID(m)] = v.takesPlace(e, m)
	}
	w := c.walks[e.Address]
	past := e.Limit > 0 && w != nil
	for _, addr := range v.cfg.Resolve(e.From) {
		run := c.runs[addr]
		for _, id := range v.sourcePeople(addr).All() {
			switch {
			case v.st.People[id] != nil || c.placesAsked[id]:
			case run || past && !w.noPlace(id):
				unread = append(unread, id)
				continue
			}
			takes, claim := claims[id]
			if !claim {
				continue
			}
			delete(claims, id) // met first here
			if len(unread) > 0 && takes {
				takersAfter++
			}
			if calls--; calls == 0 {
				return unread, takersAfter // the calls planned are decided
			}
		}
	}
	return unread, takersAfter
}

// CreditsBudget is the most credits a run of p may spend: the most p
// plans, and no more than maxCredits (max_credits; negative: no cap).
// The engine spends no more; WithPlan bounds each block's calls by it.
func (p *Plan) CreditsBudget(maxCredits int) int {
	if maxCredits >= 0 && maxCredits < p.Totals.CreditsMax {
		return maxCredits
	}
	return p.Totals.CreditsMax
}

// WithPlan makes c know the most calls the engine pays for each enrich
// block running p: the calls p plans for it, and no more than the
// credits of the run allow (CreditsBudget). readPlacesMet reads none of
// the people met past them. c is returned.
func (c *Candidates) WithPlan(p *Plan) *Candidates {
	if p == nil {
		return c
	}
	most := -1 // no bound by credits
	if cpe := c.cfg.API.CreditsPerEnrich; cpe > 0 {
		most = p.CreditsBudget(c.cfg.API.MaxCredits) / cpe
	}
	c.calls = map[string]int{}
	for _, ch := range p.Changes {
		if ch.Kind == kind.Enrich {
			c.calls[ch.Address] = ch.CallsMax
			if most >= 0 {
				c.calls[ch.Address] = min(ch.CallsMax, most)
			}
		}
	}
	return c
}

// callsOf is the calls planned for e (WithPlan), or -1 when c was not
// told them.
func (c *Candidates) callsOf(e *config.Enrich) int {
	if n, ok := c.calls[e.Address]; ok {
		return n
	}
	return -1
}

// placesTaken counts the people of out who take a place of e.
func (v *env) placesTaken(e *config.Enrich, out []member) int {
	n := 0
	for _, m := range out {
		if v.takesPlace(e, m) {
			n++
		}
	}
	return n
}

// nextPlacesPage is the size of the next page of readPlacesMet for the places
// its people may take: twice those and 16 more, or twice the last page
// when that is more (as nextHeldPage).
func (c *Candidates) nextPlacesPage(places int) int {
	c.placesPage = max(2*places+16, 2*c.placesPage)
	return c.placesPage
}

// reusedMembers are the people of rs as members.
func reusedMembers(rs []reusedPerson) []member {
	out := make([]member, len(rs))
	for i, r := range rs {
		out[i] = wholeMember(r.p)
	}
	return out
}

// noPlace reports whether the walk (nil: none) knew that the person of
// id, not read, takes no place of its block: asked about, neither read
// for a place nor counted past the places (count).
func (w *placesWalk) noPlace(id string) bool {
	if w == nil {
		return false
	}
	if p, ok := w.known[id]; !ok || p != nil {
		return false
	}
	if w.countedSet == nil {
		w.countedSet = make(map[string]bool, len(w.counted))
		for _, c := range w.counted {
			w.countedSet[c] = true
		}
	}
	return !w.countedSet[id]
}
