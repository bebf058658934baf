package plan

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// Reuse across workspaces over a state read in part (EnrichReadsOf with
// Options.Reuse): the other workspaces list the lookup keys of every
// person they hold an enrichment of (Options.ReuseHeld), and the store
// finds the people of this workspace those keys name (state.Base.Keyed).
// They are read whole. A person not read then has no enrichment elsewhere
// to copy: the places walk and the census count them as without reuse.
// The copies take the places left first, in from order (placeCopies):
// all of them are among the people read, so the plan knows them all,
// and the walk reads as many people for the places as it would without
// them, some of whom the copies leave without one. The other workspaces
// are asked about the people read whom the keys name, and no others
// (lookupReuse). An enrichment is copied only if made at the company the
// person works at now (sameEmployer), which this workspace's
// enrichments tell: their companies and domains are read from the store
// (state.ValueLister) when a person read may be copied.
//
// Past maxReuseRead people found, only those one of the blocks may
// enrich are read (mayCopy): a person who left the network, has no page
// name or holds an enrichment fresh for every block is copied by none.
// When the one block's limit leaves no place (reuseScope.noPlace) the
// copies take none: the keys are not listed, nobody is read for them,
// and the people the plan reads anyway are asked about (reuseAsk), its
// sketches by their keys (heldSketches). A plan that then finds a place,
// counts the people not read, or takes a census that counts some unread,
// lists the keys and finds the people held then (findHeld), known by ID
// alone as below: a copy past the places is no person to enrich. The
// census asks about the people held it reads, and leaves out of those
// it counts unread the copies (heldCensused). Without the keys it needs
// everyone.
// With places left and still more than maxReuseRead of them, only the
// first the block meets in from order are read (firstHeld), enough to
// fill the places twice over (reuseScope.prefix), or none past
// maxReusePrefix, for a census, or beside several blocks: the other
// people held are known by ID alone (reuseFacts.partial). When the plan meets one of
// those before its copies took every place, it reads them whole from
// there on, a page at a time (heldMet), and those it counts past the
// places who may be due (heldToEnrich). It needs everyone only past
// maxHeldRead of them and half the people its sources list
// (heldReadMost): reading them by ID would then cost more. The walk skips the sources that run;
// should such a run fail, the apply walks the lead list held before, and
// its copies read the people held they meet unread before the last copy
// or while places are left (readHeldMet). A plan
// built with these facts but no lookup (Within's, made again) copies
// nobody: the people held are then people not read (env.heldUnread).

// maxReuseRead is the most people EnrichReadsOf reads whole because
// another workspace holds an enrichment of them (a variable for tests):
// past it, the people who may be copied (mayCopy); past that too, the
// plan reads every person.
var maxReuseRead = 100_000

// maxReuseKeys is the most lookup keys of the other workspaces the store
// is asked to find people by, each looked up in its indexes: two a
// person, of people who are mostly not in this workspace, or mostly not
// to enrich (mayCopy). Past it, one pass over every person's lookup keys
// alone costs less (scanKeyed). A variable for tests.
var maxReuseKeys = 4_000_000

// reuseFacts are what EnrichReadsOf learned of the other workspaces.
// held are the IDs of the people whom their keys name: those read, or
// every one when unread. domains are the company domains of this
// workspace's enrichments by company key (as employers.domains gathers
// them). They are nil when the plan reads none of the people held
// (partial: it may read them as it meets them). unread says the people held were not
// read for the copies, as the block's limit leaves no place to copy to
// (reuseScope.noPlace): only those the plan reads anyway are asked about
// (reuseAsk), and a plan that finds a place needs everyone (reuseUnread).
type reuseFacts struct {
	held    map[string]bool
	domains map[string][]string
	unread  bool
	// list finds the people held when the plan needs them after all
	// (findHeld): unread facts only; listed says it did, unlisted that
	// it could not.
	list             heldLister
	listed, unlisted bool
	// partial: held are every person the keys name, of whom only the
	// first the block meets were read (firstHeld); met are those of the
	// others the plan read whole as it met them (heldMet), nil for an ID
	// that names no person.
	partial bool
	met     map[string]*state.Person
	// read counts the people held the plan read as it met them, or to
	// count those to enrich past the places (placesWalk.count); page is
	// the size of the last page read as met (readHeld).
	read int
	page int
	// most is heldReadMost, once counted (mostKnown).
	most      int
	mostKnown bool
}

// reuseScope is what reuseReads is told of the enrich blocks planned: a
// person none of them would enrich is copied by none (candidate), and
// noPlace says the store's counts leave the one block no place under its
// limit, so that it copies no one (placeCopies).
type reuseScope struct {
	blocks  []*config.Enrich
	now     time.Time
	noPlace bool
	// from are the one block's sources, in from order, and places those
	// its limit leaves by the store's counts (0: no limit, or a census).
	from   []string
	places int
}

// leadLister is a store that reads the lead IDs of a search
// (state.Base).
type leadLister interface {
	LeadIDs(addr string) ([]string, error)
}

// keyFinder is a store that finds people by their lookup keys
// (state.Base).
type keyFinder interface {
	Keyed(keys []string) ([]string, bool, error)
}

// valueLister lists the pairs of company and domain the enrichments name
// (state.Base, state.CompanyLister).
type valueLister interface {
	EnrichmentCompanies(fn func(company, domain []byte)) error
	ValuesListed() bool
}

// reuseReads returns the people of this workspace the other workspaces
// may give an enrichment of, to be read whole, and what the plan needs
// to tell whom it copies (reuseFacts); nil facts without other
// workspaces (opts.Reuse nil). Past maxReuseRead people found, only
// those the blocks may enrich are kept (mayCopy), and none is read when
// the block's limit leaves no place (scope.noPlace: reuseFacts.unread).
// ok is false when the plan is to read every person: the keys cannot be
// listed or found (an error reading the other workspaces included: the
// plan of every person reports it), or they find more than maxReuseRead
// people who may be copied and the store lists no leads (firstHeld).
func reuseReads(opts Options, ix EnrichStore, scope reuseScope) (ids []string, facts *reuseFacts, ok bool, err error) {
	if opts.Reuse == nil {
		return nil, nil, true, nil
	}
	_, finds := ix.(keyFinder)
	vl, lists := ix.(valueLister)
	if opts.ReuseHeld == nil || !finds || !lists || !vl.ValuesListed() {
		return nil, nil, false, nil
	}
	if scope.noPlace {
		return unreadReuse(vl, heldLister{opts.ReuseHeld, ix})
	}
	defer keysGC()()
	keys, err := opts.ReuseHeld()
	if err != nil {
		return nil, nil, false, nil
	}
	facts = &reuseFacts{held: map[string]bool{}}
	if len(keys) == 0 {
		return nil, facts, true, nil
	}
	found, known, err := heldPeople(ix, keys)
	if err != nil || !known {
		return nil, nil, false, err
	}
	for _, id := range found {
		facts.held[id] = true
	}
	if len(found) > maxReuseRead {
		if err = scope.mayCopy(facts.held, found, ix); err != nil {
			return nil, nil, false, err
		}
	}
	switch {
	case len(facts.held) > maxReuseRead:
		if found, ok, err = scope.firstHeld(facts.held, ix); err != nil || !ok {
			return nil, nil, false, err
		}
		facts.partial = true
	case len(facts.held) < len(found):
		found = slices.Sorted(maps.Keys(facts.held))
	}
	if len(found) > 0 || facts.partial {
		if facts.domains, err = storeDomains(vl); err != nil {
			return nil, nil, false, err
		}
	}
	return found, facts, true, nil
}

// unreadReuse are the facts of reuse when the block's limit leaves no
// place (reuseScope.noPlace): the other workspaces' keys are not listed
// nor their people found; the plan asks about the people it reads
// (reuseAsk), and reads whole those of its sketches the other
// workspaces answer for (heldSketches).
func unreadReuse(vl valueLister, list heldLister) ([]string, *reuseFacts, bool, error) {
	domains, err := storeDomains(vl)
	if err != nil {
		return nil, nil, false, err
	}
	return nil, &reuseFacts{unread: true, domains: domains, list: list}, true, nil
}

// heldLister finds the people of this workspace the other workspaces
// hold an enrichment of, as reuseReads does: their keys
// (Options.ReuseHeld), then the people those name (heldPeople).
type heldLister struct {
	keys  func() ([]string, error)
	store EnrichStore
}

// findHeld finds the people held elsewhere that reuseReads left unread
// at the limit (reuseFacts.unread), once, when e's plan needs them
// (listHeld). It reports whether they are known: always without such
// facts. When they cannot be found, the plan of e needs everyone, and
// later calls list nothing again (reuseFacts.unlisted).
func (v *env) findHeld(e *config.Enrich) bool {
	r := v.heldUnread()
	switch {
	case r == nil || !r.unread:
		return true
	case !r.unlisted && r.listHeld(v.facts):
		return true
	}
	r.unlisted = true
	v.facts.needUnread(e.Address)
	return false
}

// listHeld makes the facts of the people held elsewhere left unread at
// the limit (f.unread) those reuseReads gives with places left past
// maxReuseRead (f.partial): every person the keys name, known by ID,
// none read for the copies. The plan then reads those it meets before
// its copies take the places (heldMet), and those it counts past the
// places (heldToEnrich), instead of everyone; an apply reads those it
// meets before its last copy (readHeldMet). It reports false when the
// keys cannot be listed, or the store cannot find people by them; a
// store's error is the plan's (facts.fail).
func (f *reuseFacts) listHeld(facts *EnrichFacts) bool {
	defer keysGC()()
	keys, err := f.list.keys()
	if err != nil {
		return false
	}
	found, finds, err := heldPeople(f.list.store, keys)
	if err != nil {
		facts.fail(err)
	}
	if !finds {
		return false
	}
	f.held = make(map[string]bool, len(found))
	for _, id := range found {
		f.held[id] = true
	}
	f.unread, f.partial, f.listed = false, true, true
	return true
}

// heldSketches are the IDs of the people of sketches the other
// workspaces answer for (lookup) when f left them unread
// (reuseFacts.unread), or may answer for when it read only some of them
// (reuseFacts.partial): read whole, so that the plan tells whether they
// are copied as the whole state's plan does (sameEmployer reads their
// company). Unread, their page names and network IDs are read alone
// (state.Base.SketchLeads) to ask by their keys.
func (f *reuseFacts) heldSketches(lookup ReuseLookup, ix EnrichStore, sketches []*state.Person) ([]string, error) {
	if f != nil && f.partial {
		var ids []string
		for _, p := range sketches {
			if f.held[p.ID] {
				ids = append(ids, p.ID)
			}
		}
		return ids, nil
	}
	s, ok := ix.(leadSketcher)
	if f == nil || !f.unread || len(sketches) == 0 {
		return nil, nil
	}
	if !ok {
		return nil, errNoLeadSketcher
	}
	keyed := make([]*state.Person, len(sketches))
	for i, p := range sketches {
		keyed[i] = &state.Person{ID: p.ID}
	}
	if err := s.SketchLeads(keyed, []string{"pageName", "networkId"}); err != nil {
		return nil, err
	}
	var keys []string
	for _, p := range keyed {
		keys = append(keys, state.LookupKeys(p)...)
	}
	found, err := lookup(keys)
	if err != nil {
		return nil, fmt.Errorf("reading the enrichments of the other workspaces: %w", err)
	}
	var ids []string
	for _, p := range keyed {
		if slices.ContainsFunc(state.LookupKeys(p), func(k string) bool { _, ok := found[k]; return ok }) {
			ids = append(ids, p.ID)
		}
	}
	return ids, nil
}

// errNoLeadSketcher: a store that reads people by ID reads their page
// names alone too (state.Base gives both).
var errNoLeadSketcher = errors.New("the store reads no lead field alone")

// heldPeople are the IDs of the people keys name, sorted, each once:
// asked of the store by key (keyedPeople), or past maxReuseKeys keys
// found in one pass over every person's lookup keys alone (scanKeyed).
// ok is false when the store can do neither.
func heldPeople(ix EnrichStore, keys []string) (ids []string, ok bool, err error) {
	ls, scans := ix.(leadScanner)
	if len(keys) > maxReuseKeys {
		if !scans {
			return nil, false, nil
		}
		return scanKeyed(ls, keys)
	}
	kf, keyed := ix.(keyFinder)
	if !keyed {
		return nil, false, nil
	}
	return keyedPeople(kf, keys)
}

// leadScanner is a store that reads every person a page at a time, each
// holding the lead fields asked alone (state.Base).
type leadScanner interface {
	EachLead(cols state.PersonColumns, fn func(*state.Person) error) error
}

// keyColumns are the lead fields a person's lookup keys are made of
// (state.LookupKeys): the page name and the network ID, besides the ID.
var keyColumns = state.PersonColumns{Lead: []string{"pageName", "networkId"}}

// scanKeyed are the IDs of the people one of whose lookup keys is among
// keys, in ID order: one pass over every person, their page name and
// network ID alone, a page at a time (state.Base.EachLead). Past
// maxReuseKeys, asking the store's indexes about each key costs more
// than that pass, which costs less than reading everyone whole.
func scanKeyed(ls leadScanner, keys []string) (ids []string, ok bool, err error) {
	slices.Sort(keys)
	keys = slices.Compact(keys)
	err = ls.EachLead(keyColumns, func(p *state.Person) error {
		for _, k := range state.LookupKeys(p) {
			if _, found := slices.BinarySearch(keys, k); found {
				ids = append(ids, p.ID)
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return ids, true, nil
}

// keyedPeople are the IDs of the people keys name (state.Base.Keyed),
// sorted, each once. ok is false when the store cannot find them so:
// with ok, no ID means the keys name nobody here (workspaces for other
// markets), and the people held are known to be none.
func keyedPeople(kf keyFinder, keys []string) (ids []string, ok bool, err error) {
	slices.Sort(keys)
	keys = slices.Compact(keys)
	found, finds, err := kf.Keyed(keys)
	if err != nil || !finds {
		return nil, false, err
	}
	slices.Sort(found)
	return slices.Compact(found), true, nil
}

// mayCopy leaves out of held (the people of ids, sorted) those no block
// of s would enrich, whom no block copies either (candidate): those who
// left the network (needsEnrich), have no page name, or hold an
// enrichment fresh for every block, as the store's indexes tell (Left,
// Pageless, SketchedAmong: ID, block and time), without reading a
// person. Past maxReuseRead of them, only the first are read (firstHeld).
func (s reuseScope) mayCopy(held map[string]bool, ids []string, ix EnrichStore) error {
	for _, ask := range []func() ([]string, error){ix.Left, ix.Pageless} {
		gone, err := ask()
		if err != nil {
			return err
		}
		for _, id := range gone {
			delete(held, id)
		}
	}
	enriched, err := ix.SketchedAmong(ids)
	if err != nil {
		return err
	}
	for _, p := range enriched {
		if !s.staleForSome(p) {
			delete(held, p.ID)
		}
	}
	return nil
}

// maxReusePrefix is the most people held firstHeld reads (a variable
// for tests).
var maxReusePrefix = 100_000

// maxHeldRead is the most people held the plan reads whole while it is
// built (a variable for tests), unless half the people its block's
// sources list are more (heldReadMost). It counts those it meets before
// the copies took every place (heldMet) and those it reads to count the
// people to enrich past the places (heldToEnrich). Past both, the plan
// needs everyone.
var maxHeldRead = 100_000

// heldListedPart is the part of the people its sources list past which
// the plan reads no more people held (heldReadMost): 2, half of them (a
// variable for tests).
var heldListedPart = 2

// prefix is how many of the people held firstHeld reads: twice the
// places left and a hundredth of maxReusePrefix, which they must not
// pass; 0 when there is no place (a census), or too many (more than
// 49,500 places left): firstHeld then reads none.
func (s reuseScope) prefix() int {
	n := 2*s.places + maxReusePrefix/100
	if s.places <= 0 || n > maxReusePrefix {
		return 0
	}
	return n
}

// firstHeld are the first people of held the block meets in from order,
// its lead lists read one at a time (state.Base.LeadIDs), as many as
// prefix says: the copies among them take the places first (heldMet
// reads on when they do not). Past maxReusePrefix, for a census (no
// place counted) or several blocks (no sources in s), it reads none:
// each block's walk reads those it meets before its copies take its
// places (heldMet), and a census asks about the candidates it reads
// (heldCensused). ok is false for a store that lists no leads.
func (s reuseScope) firstHeld(held map[string]bool, ix EnrichStore) (ids []string, ok bool, err error) {
	n := s.prefix()
	if n == 0 {
		return nil, true, nil // none read up front: heldMet reads them
	}
	ll, lists := ix.(leadLister)
	if !lists {
		return nil, false, nil
	}
	seen := map[string]bool{}
	for _, addr := range s.from {
		leads, err := ll.LeadIDs(addr)
		if err != nil {
			return nil, false, err
		}
		for _, id := range leads {
			if !held[id] || seen[id] {
				continue
			}
			seen[id] = true
			if ids = append(ids, id); len(ids) == n {
				return ids, true, nil
			}
		}
	}
	return ids, true, nil
}

// staleForSome reports whether p (a sketch: its enrichment's block and
// time) holds an enrichment some block of s finds stale (env.stale): too
// old for its refresh, or perhaps changed for its refresh_on (the sketch
// holds no history).
func (s reuseScope) staleForSome(p *state.Person) bool {
	for _, e := range s.blocks {
		if p.Enrichment == nil || len(e.RefreshOn) > 0 || e.Refresh > 0 && s.now.Sub(p.Enrichment.EnrichedAt) >= e.Refresh {
			return true
		}
	}
	return false
}

// storeDomains gathers the company domains of the store's enrichments by
// company key, as employers.domains gathers them from the people. A SQL
// store gives each pair of company and domain once, grouped by its
// engine: not a row for each enrichment.
func storeDomains(vl valueLister) (map[string][]string, error) {
	m := &employers{byCompany: map[string][]string{}}
	seen := map[string]bool{}
	err := vl.EnrichmentCompanies(func(company, domain []byte) {
		pair := string(company) + "\x00" + string(domain)
		if seen[pair] {
			return
		}
		seen[pair] = true
		m.learn(string(company), string(domain))
	})
	return m.byCompany, err
}

// employers is what the plan knows of this workspace's company domains:
// the store's (a copy: a run learns more), nil when f read none.
func (f *reuseFacts) employers() *employers {
	if f == nil || f.domains == nil {
		return nil
	}
	m := make(map[string][]string, len(f.domains))
	for k, ds := range f.domains {
		m[k] = slices.Clip(ds)
	}
	return &employers{byCompany: m}
}

// reuseAsk reports whether lookupReuse asks the other workspaces about p:
// over a state read in part, only about the people their keys name, or,
// when those were left unread, about the people read whole.
func (v *env) reuseAsk(p *state.Person) bool {
	switch {
	case v.facts == nil || v.facts.reuse == nil:
		return true
	case v.facts.reuse.unread:
		// A sketch left so was asked about by its keys (heldSketches).
		return p.Lead.PageName != state.PageUnread
	}
	return v.facts.reuse.held[p.ID]
}

// reuseEmployers gives the plan over a state read in part the company
// domains the store holds, before any is asked (sameEmployer).
func (v *env) reuseEmployers() {
	if v.facts != nil && v.emp == nil {
		v.emp = v.facts.reuse.employers()
	}
}

// WithFacts makes c, over a partial state, know the company domains of
// the state's enrichments the plan read from the store (f, the plan's
// EnrichFacts), which the people it holds do not all tell: a copy from
// another workspace must be made at one of them. c is returned.
func (c *Candidates) WithFacts(f *EnrichFacts) *Candidates {
	if f != nil {
		if m := f.reuse.employers(); m != nil {
			c.emp = m
		}
		if f.reuse != nil && f.reuse.partial {
			c.held, c.heldAsked = f.reuse.held, map[string]bool{}
		}
		c.runs, c.walks, c.placesAsked = f.runs, f.walks, map[string]bool{}
	}
	return c
}
