package plan

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
)

// Claims are the people an apply has chosen to enrich so far in its run,
// by person ID, each with the address of the enrich block that chose them:
// queued, in flight, done or failed.
type Claims map[string]string

// claimed returns the people enrich block e should claim next in an
// apply, in a stable order, with its limit applied, given what the run has
// claimed already (claims; nil before the first claim). Apply (the engine)
// calls it through Candidates.Claimed; the plan counts the same people
// with the same rules (env.collect, env.limit, env.claimRounds), so plan
// and apply choose people alike:
//
//   - the people are those of e.From: the kept leads (the first max_results)
//     of each search whose state record matches the search as configured
//     now (same request and generation), and the person of each profile
//     read that matches; in from order, each person once;
//   - a person is left out when they have no page name (enrich needs one)
//     or hold an enrichment (by any block) that is not older than e.Refresh
//     (no refresh: never older);
//   - with refresh_on, then the people e enriched whom its sources no
//     longer hold and a field of refresh_on changed for after that
//     enrichment, by ID (collectFormer);
//   - then where (Config.Match) must hold;
//   - limit: at most e.Limit people may hold an enrichment made by e. People
//     who already hold one count, and so do people forgotten since e
//     enriched them (State.ErasedEnrichments: the credits were spent);
//     enriching one of them again (refresh) takes no new place. Places go
//     in the order above.
//
// Claimed people are left out, and
//
//   - a person claimed by another block takes none of e's places: a person
//     read by several blocks is enriched once, for the block that claimed
//     them first, and e goes on to its next people (as the plan counts a
//     person for the first block in file order and leaves them out of the
//     blocks after);
//   - a person claimed by e holds one of e's places until state shows the
//     enrichment (made, or of unknown outcome): one queued and not yet
//     sent, or whose enrichment certainly failed, still counts, so that a
//     pass repeated as results arrive never gives e more than its limit.
//
// Apply calls it for each block as the block's sources complete and then,
// once every call of the run has its outcome, again for each block, in
// rounds, until a round claims nobody: the rounds the plan counts
// (claimRounds). So one apply does what its plan said, and the next plan
// has nothing left to enrich.
//
// now should be the plan's CreatedAt, so that nobody turns stale between
// plan and apply.
func (v *env) claimed(e *config.Enrich, claims Claims) ([]string, error) {
	out, _, err := v.claimedMembers(e, claims)
	return v.memberIDs(out), err
}

// claimedMembers are the people claimed chooses, and held the places
// e's own claims in the run hold.
func (v *env) claimedMembers(e *config.Enrich, claims Claims) (out []member, held int, err error) {
	bp, err := v.collect(e, nil, true)
	if err != nil {
		return nil, 0, err
	}
	if len(claims) == 0 {
		return v.limit(e, bp.todo, nil, 0), 0, nil
	}
	// Claims name people by the ID they had then; a search may have
	// re-keyed them since (page name -> network ID): follow it.
	claimed := make(map[string]bool, len(claims)) // by the person's ID now
	for id, by := range claims {
		p := v.person(id)
		if p == nil {
			p = v.goneKept.person(id) // gone: their place, as when read
		}
		if p == nil {
			continue
		}
		claimed[p.ID] = true
		if by == e.Address && v.takesPlace(e, wholeMember(p)) {
			held++
		}
	}
	skip := func(m member) bool { return claimed[v.memberID(m)] }
	// The places e's own claims hold are taken off like places in use.
	return v.limit(e, bp.todo, skip, -held), held, nil
}

// ReadySources returns the sources of e whose people apply may enrich
// while other sources of e are still running: the longest prefix of e's
// instances (in from order) for which done is true. Places under the limit
// go in from order, so a later source must not take people before an
// earlier one has brought its own: with from = [search.cto,
// search.engineers] and a limit, the CTOs come first even when the
// engineers' search answers first. Candidates.Claimed over a ready
// prefix gives a prefix of what it gives over all sources.
func ReadySources(cfg *config.Config, e *config.Enrich, done func(addr string) bool) []string {
	all := cfg.Resolve(e.From)
	for i, a := range all {
		if !done(a) {
			return all[:i]
		}
	}
	return all
}

// env is what the plan reads, with the instances by address and the
// request hashes computed once.
type env struct {
	// gcBack sets the collector back once the plan is built (pagesGC).
	gcBack   func()
	cfg      *config.Config
	st       *state.State
	now      time.Time
	searches map[string]*config.Search
	profiles map[string]*config.Profile
	bodies   map[string][]byte // instance address -> request body as apply sends it
	// owned lists, per enrich block address, the people whose enrichment
	// that block made; computed on first use, or in the background from
	// prefetchOwned (then ownedDone is closed when it is ready).
	// ownedTaught says the pass that found them taught excl the company
	// domains (learnWhileIndexing).
	owned       map[string]*ownedPeople
	ownedDone   chan struct{}
	ownedTaught bool
	// ownedPanic is prefetchOwned's panic (a bug), raised again in the
	// plan's goroutine by waitOwned.
	ownedPanic error
	// copies counts, per enrich block address, the people whose
	// enrichment the block is to copy from another workspace
	// (placeCopies): places taken, not in the state yet.
	copies map[string]int
	// gone are the people the plan removes first (retention): no enrich
	// block counts them.
	gone map[*state.Person]bool
	// goneKept are those read in the kept form, by ID (keptGone).
	goneKept *keptGone
	// goneCounts are the store's counts of each block without them
	// (lessGone).
	goneCounts map[string]*enrichCounts
	// goneBy counts their enrichments by block (goneEnrichedBy).
	goneBy map[string]int
	// shared maps a profile address to the profile address whose read in
	// state it will share (a plan's update, ReasonSamePerson): its person
	// is that read's.
	shared map[string]string
	// excl matches people against the exclude blocks (nil without any);
	// learned is set once it has learned the state's company domains.
	excl    *config.Exclusion
	learned *bool
	// pending holds the e-mails the imports of this plan give people
	// already in the state, by "n:"+network ID and "p:"+page name.
	pending map[string]pendingEmail
	// pendingIDs are, for each import of this plan, the people of its
	// file already in the state: the import's people so far.
	pendingIDs map[string][]string
	pendingSet map[string]bool // the IDs of pendingIDs (importNames)
	// watched lists, by track address, the people the track read before
	// (Person.Tracked), in no order: its own record (trackPeople). Found
	// with the owned people (findOwned) or on first use.
	watched map[string][]*state.Person
	// replaced counts, by enrich block, the enrichments an import of this
	// plan replaces with its own (importReplaces): their places are free
	// once apply records the import, before any call.
	replaced    map[string]int
	replacedSet map[*state.Person]bool
	// lookup asks the other workspaces for their enrichments; reuse holds
	// the answers by lookup key, asked the keys asked about.
	lookup ReuseLookup
	reuse  answers
	asked  map[string]bool
	// emp knows the company domains of this workspace's enrichments,
	// which an enrichment copied from another workspace must match.
	emp *employers
	// onExcluded, when set, hears of each person an exclude block takes
	// out of a block's candidates.
	onExcluded func(*state.Person)
	// learnWhileIndexing makes the index of owned enrichments teach the
	// exclude blocks the company domains as it goes (one pass over the
	// people, not two).
	learnWhileIndexing bool
	// colleagues, when not nil, teach the exclude blocks the company
	// domains instead of the state's people (Options.Colleagues).
	colleagues *Colleagues
	// keepMet makes collect list the people each block meets
	// (blockPeople.met): the plan's candidates over several blocks.
	keepMet bool
	// facts are the store's counts when the state holds only the people
	// EnrichReadsOf names (collectRead); missed says a block was asked
	// about that they do not count.
	facts  *EnrichFacts
	missed bool
	// sketchHeld are the Persons of the census sketches a list other than
	// the people to enrich holds, by index (sketchMet).
	sketchHeld map[int32]*state.Person
}

func newEnv(cfg *config.Config, st *state.State, now time.Time) *env {
	if st == nil {
		st = state.New()
	}
	v := &env{
		cfg: cfg, st: st, now: now,
		searches: make(map[string]*config.Search, len(cfg.Searches)),
		profiles: make(map[string]*config.Profile, len(cfg.Profiles)),
		bodies:   make(map[string][]byte, len(cfg.Searches)+len(cfg.Profiles)),
		shared:   map[string]string{},
		excl:     cfg.Exclusion(),
	}
	for _, s := range cfg.Searches {
		v.searches[s.Address] = s
	}
	for _, p := range cfg.Profiles {
		v.profiles[p.Address] = p
	}
	return v
}

// requestBody is the body apply sends for a request: json.Marshal of it,
// computed once per address.
func (v *env) requestBody(addr string, req any) []byte {
	if b, ok := v.bodies[addr]; ok {
		return b
	}
	b, err := json.Marshal(req)
	if err != nil {
		b = nil
	}
	v.bodies[addr] = b
	return b
}

// sameRequest reports whether a state record of addr was made by the request
// configured now: the same bytes as sent (the common case, no hashing), or
// the same request hash (the record's JSON formatted otherwise).
func (v *env) sameRequest(addr string, req any, gen api.Generation, recBody json.RawMessage, recHash string) bool {
	if gen != v.cfg.API.Generation {
		return false
	}
	body := v.requestBody(addr, req)
	if body == nil {
		return false
	}
	if bytes.Equal(body, recBody) {
		return true
	}
	return recHash == state.RequestHash(gen, body)
}

// searchCurrent reports whether rec was made by s as configured now.
func (v *env) searchCurrent(s *config.Search, rec *state.Search) bool {
	return rec != nil && v.sameRequest(s.Address, s.Request, rec.Generation, rec.Request, rec.RequestHash)
}

// profileCurrent reports whether rec was made by p as configured now.
func (v *env) profileCurrent(p *config.Profile, rec *state.ProfileRead) bool {
	return rec != nil && v.sameRequest(p.Address, p.Request, rec.Generation, rec.Request, rec.RequestHash)
}

// keptLeads returns the leads of a search run that its max_results keeps.
func keptLeads(s *config.Search, rec *state.Search) state.IDList {
	ids := rec.Leads()
	if s.MaxResults > 0 && ids.Len() > s.MaxResults {
		ids = ids.Head(s.MaxResults)
	}
	return ids
}

// sourcePeople returns the people a source instance holds in state, nil when
// it has no record matching the configuration.
func (v *env) sourcePeople(addr string) state.IDList {
	if s := v.searches[addr]; s != nil {
		rec := v.st.Searches[addr]
		if !v.searchCurrent(s, rec) {
			return state.IDList{}
		}
		return keptLeads(s, rec)
	}
	if state.IsImport(addr) {
		return state.IDsOf(v.importPeople(addr))
	}
	if p := v.profiles[addr]; p != nil {
		rec := v.st.Profiles[addr]
		if from, ok := v.shared[addr]; ok {
			rec = v.st.Profiles[from]
			if rec == nil || rec.PersonID == "" {
				return state.IDList{}
			}
			return state.IDsOf([]string{rec.PersonID})
		}
		if !v.profileCurrent(p, rec) || rec.PersonID == "" {
			return state.IDList{}
		}
		return state.IDsOf([]string{rec.PersonID})
	}
	return state.IDList{}
}

// blockPeople are the people of an enrich block's sources in state.
type blockPeople struct {
	// todo need enrichment and pass where, in order.
	todo []member
	// failing need enrichment but fail where now or have no page name; a
	// call of this run may change their lead so that they qualify. People
	// who left the network and would need an enrichment are among them: a
	// read of this run may find them back.
	failing []*state.Person
	// fresh hold an enrichment that is not stale: a change seen in this
	// run may make them due again (refresh_on).
	fresh []*state.Person
	// formerFresh are people e enriched whom its sources no longer hold,
	// holding an enrichment no refresh_on change is known after: a read
	// of this run may show one (collectFormer).
	formerFresh []*state.Person
	// former counts the people of todo whom e enriched and its sources
	// no longer hold, enriched again for a refresh_on change.
	former int
	// members is how many distinct people the sources hold; met are they
	// when the plan has several enrich blocks (env.keepMet), to count
	// the candidates of them all once.
	members int
	met     []*state.Person
	// sources are, over a state read in part (collectRead), the block's
	// sources, whose people count as met (metCount).
	sources []source
	// enriched is how many of them hold an enrichment that is not stale.
	enriched int
	// unread counts, over a state read in part, the people not read who
	// would be in todo (countUnread); unreadAll says every one is.
	unread    int
	unreadAll bool
	// freshUnread and formerUnread count, over a state read in part, the
	// people not read who would be in fresh and formerFresh
	// (enrich_refreshon.go); countFormer lists the latter when asked.
	// With several blocks, freshUnreadIDs and formerUnreadIDs are they.
	freshUnread, formerUnread       int
	countFormer                     func() []string
	freshUnreadIDs, formerUnreadIDs []string
	// sketched are, with refresh_on, the people of fresh and formerFresh
	// a track of this run reads in sketch, by the index of their sketch
	// (sketchRead).
	sketched []int32
	// excluded need enrichment (and have a page name), or hold an e-mail
	// an import gives them, but an exclude block removes them, with the
	// block that does.
	excluded []excludedPerson
	// imported would need enrichment but an import gives them a fresh
	// e-mail (one they hold, or one an import of this plan brings).
	imported []*state.Person
	// reused would be enriched (they pass where) but another workspace
	// holds a fresh enrichment of them: copied, at no credit.
	reused []reusedPerson
}

// excludedPerson is a person an exclude block removes from a block's
// candidates.
type excludedPerson struct {
	p  *state.Person
	by *config.Exclude
	// free: an import gives them an e-mail; excluding them saves no
	// credit.
	free bool
}

// person returns the person of an ID, following re-keys.
func (v *env) person(id string) *state.Person {
	if p := v.st.People[id]; p != nil || !strings.HasPrefix(id, state.PagePrefix) {
		return p // State.Person would look the ID up again
	}
	if v.goneKept.has(id) {
		return nil // gone, read in the kept form
	}
	return v.st.Person(id)
}

// needsEnrich reports whether p is to be enriched by e at v.now as far as
// enrichments go (page name and where aside).
func (v *env) needsEnrich(e *config.Enrich, p *state.Person) bool {
	if p.Status == state.StatusLeft {
		// The service knows the page name no more: an enrichment would
		// only be refused.
		return false
	}
	return v.stale(e, p)
}

// stale reports whether p holds no enrichment fresh for e: none, one
// older than e's refresh, or one a field of e's refresh_on changed after.
func (v *env) stale(e *config.Enrich, p *state.Person) bool {
	if p.Enrichment == nil {
		return true
	}
	if e.Refresh > 0 && v.now.Sub(p.Enrichment.EnrichedAt) >= e.Refresh {
		return true
	}
	return changedSinceEnriched(e, p)
}

// changedSinceEnriched reports whether a field of e's refresh_on changed
// after p's enrichment: its e-mail and domain belong to the old employer.
func changedSinceEnriched(e *config.Enrich, p *state.Person) bool {
	if p.Enrichment == nil {
		return false
	}
	for _, f := range e.RefreshOn {
		if p.ChangedSinceEnriched(f) {
			return true
		}
	}
	return false
}

// ownedBy counts the people whose enrichment enrich block addr made and
// keeps: not those an import of this plan gives a newer e-mail (apply
// records the import first, which frees their places).
func (v *env) ownedBy(addr string) int {
	if c := v.counted(addr); c != nil {
		return c.owned - v.replaced[addr]
	}
	return v.ownedList(addr).n - v.replaced[addr]
}

// copiedBy counts the people whose enrichment enrich block addr copied
// from another workspace (ownedPeople.copies).
func (v *env) copiedBy(addr string) int {
	if c := v.counted(addr); c != nil {
		return c.copies
	}
	return v.ownedList(addr).copies
}

// ownedPerson is a person whose enrichment an enrich block made, with the
// time of that enrichment (read once, while the person is at hand).
type ownedPerson struct {
	p  *state.Person
	at time.Time
}

// ownedPeople are the people one block owns, in chunks of a fixed size:
// a list of 200,000 grown by append would copy itself into 30 MB of
// garbage on the way.
type ownedPeople struct {
	chunks [][]ownedPerson
	n      int
	// copies counts the people whose enrichment the block copied from
	// another workspace (Enrichment.CopiedBy): they hold its places too.
	copies int
}

// ownedChunk is the size of ownedPeople's chunks. A variable only so that
// the tests, whose worlds hold a few people each, make chunks of a few:
// 4,096 of them zeroed for each block of each world took 8% of the
// package's test CPU. Only TestMain sets it, before any test runs.
var ownedChunk = 4096

func (o *ownedPeople) add(op ownedPerson) {
	if o.n%ownedChunk == 0 {
		o.chunks = append(o.chunks, make([]ownedPerson, 0, ownedChunk))
	}
	last := &o.chunks[len(o.chunks)-1]
	*last = append(*last, op)
	o.n++
}

// all yields the people in the order they were added.
func (o *ownedPeople) all(yield func(ownedPerson) bool) {
	for _, c := range o.chunks {
		for _, op := range c {
			if !yield(op) {
				return
			}
		}
	}
}

// ownedList returns the people whose enrichment enrich block addr made
// (never nil). With learnWhileIndexing, the pass over the people that
// finds them also teaches the exclude blocks the company domains (one
// pass, not two), or a pass of its own does when they were found before.
func (v *env) ownedList(addr string) *ownedPeople {
	v.waitOwned()
	switch {
	case v.owned == nil:
		v.owned, v.ownedTaught = v.findOwned(v.learnWhileIndexing), v.learnWhileIndexing
	case v.learnWhileIndexing && !v.ownedTaught:
		for _, p := range v.st.People {
			learnPerson(v.excl, p)
		}
		v.ownedTaught = true
	}
	if o := v.owned[addr]; o != nil {
		return o
	}
	return &ownedPeople{}
}

// prefetchOwned starts finding the people each enrich block owns in the
// background: it takes a pass over every person in state (in a large
// state, as long as planning the searches and collecting the blocks'
// people, which it overlaps). It reads the state and gone, which nothing
// changes while a plan is built; when the exclude blocks need the
// company domains, it teaches them too, and excludedBy waits for it
// (through ownedList) before it matches anyone.
func (v *env) prefetchOwned() {
	if v.owned != nil || v.ownedDone != nil {
		return
	}
	learn := v.excl != nil && v.excl.NeedsColleagues() && v.colleagues == nil
	done := make(chan struct{})
	v.ownedDone = done
	go func() {
		defer close(done)
		defer recovered.Catch(&v.ownedPanic)
		v.owned, v.ownedTaught = v.findOwned(learn), learn
	}()
}

// waitOwned waits for what prefetchOwned started, if it did; its panic
// (a bug) is raised again here, with the stack of its goroutine.
func (v *env) waitOwned() {
	if v.ownedDone != nil {
		<-v.ownedDone
		recovered.Raise(v.ownedPanic)
	}
}

// settle waits for what prefetchOwned started: once Build returns, its
// caller may change the state (apply folds results into it).
func (v *env) settle() {
	v.waitOwned()
	if v.gcBack != nil {
		v.gcBack()
		v.gcBack = nil
	}
}

// findOwned lists the people of state by the enrich block that made their
// enrichment, leaving out those the plan removes first (gone); with
// learn, it teaches the exclude blocks every person's company domain.
func (v *env) findOwned(learn bool) map[string]*ownedPeople {
	owned := map[string]*ownedPeople{}
	var watched map[string][]*state.Person
	if len(v.cfg.Tracks) > 0 && v.watched == nil {
		// The same pass finds the tracks' records (watchedBy).
		watched = map[string][]*state.Person{}
		defer func() { v.watched = watched }()
	}
	for _, p := range v.st.People {
		if learn {
			learnPerson(v.excl, p)
		}
		if watched != nil {
			for a := range p.Tracked {
				watched[a] = append(watched[a], p)
			}
		}
		if p.Enrichment == nil || v.gone[p] {
			continue
		}
		o := owned[p.Enrichment.By]
		if o == nil {
			o = &ownedPeople{}
			owned[p.Enrichment.By] = o
		}
		o.add(ownedPerson{p, p.Enrichment.EnrichedAt})
		if c := p.Enrichment.CopiedBy; c != "" {
			// A copy from another workspace holds a place of the block
			// that copied it.
			oc := owned[c]
			if oc == nil {
				oc = &ownedPeople{}
				owned[c] = oc
			}
			oc.copies++
		}
	}
	return owned
}

// erasedBy counts the enrichments made by enrich block addr whose people
// are gone from state (State.ErasedEnrichments: leadsync forget,
// retention) or leave it in this plan (retention, gone): their credits were
// spent, so they hold their places under the limit for good; forgetting a
// person must not buy an enrichment of someone new.
func (v *env) erasedBy(addr string) int {
	return v.st.ErasedEnrichments[addr] + v.goneEnrichedBy(addr)
}

// used counts the places of e's limit taken: the people holding an
// enrichment by e, those whose enrichment by e has an unknown outcome, and
// the enrichments by e of people forgotten. Without a limit, 0: nothing
// is counted.
func (v *env) used(e *config.Enrich) int {
	if e.Limit <= 0 {
		return 0
	}
	return v.ownedBy(e.Address) + v.copiedBy(e.Address) + v.copies[e.Address] +
		len(v.st.UnknownBy(e.Address)) + v.erasedBy(e.Address)
}

// limit applies e's limit to todo: people e already enriched take no new
// place; others take one each while places are left. People for which skip
// is true are left out without taking a place; freed places are those that
// other blocks give back by enriching people of e again (negative: places
// held by apply's claims, Candidates.Claimed).
func (v *env) limit(e *config.Enrich, todo []member, skip func(member) bool, freed int) []member {
	out := make([]member, 0, len(todo))
	// An enrichment of e whose outcome is unknown may have been charged:
	// it holds its place, and enriching that person again takes no new one.
	// The enrichments of people since forgotten were paid for: they keep
	// their places.
	places := 0
	if e.Limit > 0 {
		places = e.Limit - v.used(e) + freed
	}
	for _, m := range todo {
		if skip != nil && skip(m) {
			continue
		}
		switch {
		case !v.takesPlace(e, m):
		case e.Limit <= 0:
		case places > 0:
			places--
		default:
			continue
		}
		out = append(out, m)
	}
	return out
}

// claimRounds chooses, for enrich blocks in order (todo[i]: the people
// block i may enrich, in Candidates.Claimed's order), the people each
// enriches when apply runs them on those people, as apply does: in rounds.
// In a round each block in turn claims its first people that no block has
// claimed yet, while it has places (Candidates.Claimed): a person in
// several blocks goes to the first block in file order that wants them,
// and takes none of the others' places. A round ends when every call has
// its outcome; a block whose people another block enriched again in it (a
// refresh, or an enrichment whose outcome was unknown) has those places
// back in the next round. Rounds go on while one gives a place back.
func (v *env) claimRounds(blocks []*config.Enrich, todo [][]member) [][]member {
	out := make([][]member, len(blocks))
	if len(blocks) == 1 {
		out[0] = v.limit(blocks[0], todo[0], nil, 0)
		return out
	}
	// A person's ID -> the index of the block: the claims key people by
	// ID, so that two values of one person (a sketch met by two blocks)
	// are claimed once.
	claimed := map[string]int{}
	skip := func(m member) bool { _, ok := claimed[v.memberID(m)]; return ok }
	// Per block, the places given back by other blocks' enrichments and
	// those its own claims took, in the rounds before.
	freed := make([]int, len(blocks))
	held := make([]int, len(blocks))
	for {
		var round []member
		for i, e := range blocks {
			for _, m := range v.limit(e, todo[i], skip, freed[i]-held[i]) {
				claimed[v.memberID(m)] = i
				out[i] = append(out[i], m)
				round = append(round, m)
			}
		}
		more := false
		for _, m := range round {
			by := claimed[v.memberID(m)]
			for k, e := range blocks {
				switch {
				case k == by:
					if v.takesPlace(e, m) {
						held[k]++
					}
				case v.holdsPlace(e, m):
					freed[k]++
					more = true
				}
			}
		}
		// Without a place given back, a round claims nobody: each block
		// has either used its places or run out of people.
		if !more {
			return out
		}
	}
}

// holdsPlace reports whether m holds one of e's places: e enriched m, or
// m's enrichment by e has an unknown outcome.
func (v *env) holdsPlace(e *config.Enrich, m member) bool {
	if by, copied, ok := v.memberEnrichment(m); ok {
		return by == e.Address || copied == e.Address
	}
	return v.unknownOf(v.memberID(m), e.Address)
}

// takesPlace reports whether enriching m by e takes a new place under e's
// limit: not when e already enriched m (a refresh), nor when m's
// enrichment by e has an unknown outcome (it holds its place already).
func (v *env) takesPlace(e *config.Enrich, m member) bool {
	if by, copied, ok := v.memberEnrichment(m); ok {
		return by != e.Address && copied != e.Address
	}
	return !v.unknownOf(v.memberID(m), e.Address)
}

// unknownOf reports whether the enrichment of the person of id by block
// addr has an unknown outcome (state.UnknownEnrichment).
func (v *env) unknownOf(id, addr string) bool {
	u := v.st.UnknownEnrichments[id]
	return u != nil && u.By == addr
}

// personIDs returns the IDs of people.
func personIDs(people []*state.Person) []string {
	out := make([]string, len(people))
	for i, p := range people {
		out[i] = p.ID
	}
	return out
}

// displayName names a person in messages.
func displayName(p *state.Person) string {
	if p.Lead.FullName != "" {
		return p.Lead.FullName
	}
	if p.Lead.PageName != "" {
		return p.Lead.PageName
	}
	return p.ID
}

// match evaluates e's where for a lead (Config.Match). Tests replace it to
// exercise the plan's handling of where without writing HCL.
var match = func(cfg *config.Config, e *config.Enrich, l person.Lead) (bool, error) {
	return cfg.Match(e, l)
}
