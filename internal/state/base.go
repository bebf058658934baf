package state

import (
	"cmp"
	"iter"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/kind"
)

// Base is a state read for a command that asks for what it needs, not
// for every person at once: its records (Records: the searches, profiles,
// tracks, imports, failures, usage and suppression list; no people) and
// its people, which a store (the SQLite database, PostgreSQL) reads when
// asked, a page or a question at a time. A state read whole (a state
// file) is a Base too (NewBase), so that a command has one way to read.
//
// The answers come from one snapshot: a command reading a Base while an
// apply writes sees the state as it was when the Base was opened. Close
// ends the snapshot.
type Base struct {
	// Records is the state without its people: Records.People is empty,
	// whatever the store. Read people with Person, People, EachPerson,
	// and count them with PeopleFacts.
	Records *State
	store   PeopleStore
	mem     map[string]*Person // every person, when the state was read whole
	whole   *State             // the state read whole (NewBase), nil for a store
	page    int                // people read at a time; 0: PeoplePage
	// kept is the number of people each search kept, by address, when
	// the records were read without the searches' LeadIDs.
	kept map[string]int
}

// Kept is the number of people the search at addr kept (its LeadIDs, which
// a stored Base reads only for Holding). A plan's state gives it through
// State.LeadCount.
func (b *Base) Kept(addr string) int {
	if n, ok := b.kept[addr]; ok {
		return n
	}
	if sr := b.Records.Searches[addr]; sr != nil {
		return len(sr.LeadIDs)
	}
	return 0
}

// SetPage makes a stored Base read n people at a time (tests page
// through a few people).
func (b *Base) SetPage(n int) { b.page = n }

func (b *Base) pageSize() int {
	if b.page > 0 {
		return b.page
	}
	return PeoplePage
}

// PeopleStore is a store's side of a Base: the people of one snapshot,
// read on request.
type PeopleStore interface {
	// Get reads the people of ids that exist (with their enrichments and
	// histories), in no order; an ID not in the state is left out.
	Get(ids []string) ([]*Person, error)
	// After reads up to n people whose IDs sort after id (byte order),
	// in that order; fewer than n at the end.
	After(id string, n int) ([]*Person, error)
	// Tracks are the addresses of the track blocks whose reads some
	// person holds (State.TrackAddresses), sorted.
	Tracks() ([]string, error)
	// LeadIDs reads the lead IDs of the search record at addr (the
	// records are read without them: Base.Kept counts them).
	LeadIDs(addr string) ([]string, error)
	// Tracked are the IDs of the people whose records hold a read of the
	// track at addr, in no order.
	Tracked(addr string) ([]string, error)
	// Enriched are the IDs of the people holding an enrichment of the
	// enrich block at addr (Base.Enriched), in no order.
	Enriched(addr string) ([]string, error)
	// CountEnriched counts them.
	CountEnriched(addr string) (int, error)
	// IDs reads up to n person IDs that sort after id, in that order.
	IDs(after string, n int) ([]string, error)
	// Facts counts the people as PeopleFacts says, with QuotaCalls
	// counted after quotaSince (none when nil).
	Facts(quotaSince *time.Time) (PeopleFacts, error)
	// Changed are the IDs of the people whose history holds a change,
	// sorted (byte order).
	Changed() ([]string, error)
	// Exist are the IDs of ids that name a person, in no order.
	Exist(ids []string) ([]string, error)
	// CompanyDomains are the companies and company domains the people's
	// enrichments give (CompanyDomain), each pair once, in no order; with
	// keep, only the pairs of the domains keep keeps (asked of each
	// domain once).
	CompanyDomains(keep func(domain string) bool) ([]CompanyDomain, error)
	// Names counts the addresses the people's records name (NamesOf of
	// every person).
	Names() (Names, error)
	// Naming are the IDs of the people whose enrichment (its block, or
	// the block that copied it) or history names one of addrs, in no
	// order (a track's people: Tracked).
	Naming(addrs []string) ([]string, error)
	// Close ends the snapshot.
	Close() error
}

// NewBase is the Base of a state read whole (of an empty state for nil).
func NewBase(s *State) *Base {
	if s == nil {
		s = &State{}
	}
	rec := *s
	rec.People = map[string]*Person{}
	rec.idx = nil
	return &Base{Records: &rec, mem: s.People, whole: s}
}

// Whole is the state a Base was made of when it was read whole
// (NewBase); ok is false for a store's Base.
func (b *Base) Whole() (s *State, ok bool) { return b.whole, b.whole != nil }

// NewStoredBase is the Base of a store's snapshot: records (whose People
// must be empty, and whose searches may be read without their LeadIDs:
// kept then gives their number by address) and the store that reads the
// people.
func NewStoredBase(records *State, kept map[string]int, store PeopleStore) *Base {
	if records.People == nil {
		records.People = map[string]*Person{}
	}
	return &Base{Records: records, store: store, kept: kept}
}

// Stored reports whether the people are read from a store on request
// (false: the state was read whole).
func (b *Base) Stored() bool { return b.store != nil }

// Close ends the snapshot of a stored Base.
func (b *Base) Close() error {
	if b.store == nil {
		return nil
	}
	return b.store.Close()
}

// Person reads one person, nil when the state has nobody of that ID.
func (b *Base) Person(id string) (*Person, error) {
	if b.store == nil {
		return b.mem[id], nil
	}
	ps, err := b.store.Get([]string{id})
	if err != nil || len(ps) == 0 {
		return nil, err
	}
	return ps[0], nil
}

// People reads the people of ids that exist, by ID, asking the store in
// pages of PeoplePage.
func (b *Base) People(ids []string) (map[string]*Person, error) {
	out := make(map[string]*Person, len(ids))
	if b.store == nil {
		for _, id := range ids {
			if p := b.mem[id]; p != nil {
				out[id] = p
			}
		}
		return out, nil
	}
	page := b.pageSize()
	for start := 0; start < len(ids); start += page {
		ps, err := b.store.Get(ids[start:min(start+page, len(ids))])
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			out[p.ID] = p
		}
	}
	return out, nil
}

// PeoplePage is how many people a stored Base reads at a time.
const PeoplePage = 2000

// PageSize is how many people b reads from its store at a time.
func (b *Base) PageSize() int { return b.pageSize() }

// LeadIDs are the lead IDs of the search at addr, read from the store
// when the records were read without them; nil when there is no such
// search.
func (b *Base) LeadIDs(addr string) ([]string, error) {
	sr := b.Records.Searches[addr]
	if sr == nil {
		return nil, nil
	}
	if _, ok := b.kept[addr]; ok && b.store != nil {
		return b.store.LeadIDs(addr)
	}
	return sr.LeadIDs, nil
}

// Exist tells which IDs of ids name a person, asking the store in pages
// of ExistPage without reading the people.
func (b *Base) Exist(ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	if b.store == nil {
		for _, id := range ids {
			if b.mem[id] != nil {
				out[id] = true
			}
		}
		return out, nil
	}
	page := b.ExistPage()
	for start := 0; start < len(ids); start += page {
		found, err := b.store.Exist(ids[start:min(start+page, len(ids))])
		if err != nil {
			return nil, err
		}
		for _, id := range found {
			out[id] = true
		}
	}
	return out, nil
}

// AbsentFinder is a store of people that tells which IDs name no person
// without sending back those that do: asked about IDs it nearly all
// holds, it answers with nearly nothing (Base.Absent). A PeopleStore may
// implement it.
type AbsentFinder interface {
	// Absent are the IDs of ids that name no person, in no order.
	Absent(ids []string) ([]string, error)
}

// Absent tells which IDs of ids name no person, asking the store in pages
// of ExistPage without reading the people. A store that cannot answer so
// (no AbsentFinder) is asked which exist.
func (b *Base) Absent(ids []string) ([]string, error) {
	if b.store == nil {
		var out []string
		for _, id := range ids {
			if b.mem[id] == nil {
				out = append(out, id)
			}
		}
		return out, nil
	}
	var out []string
	page := b.ExistPage()
	for start := 0; start < len(ids); start += page {
		absent, err := absentIn(b.store, ids[start:min(start+page, len(ids))])
		if err != nil {
			return nil, err
		}
		out = append(out, absent...)
	}
	return out, nil
}

// absentIn are the IDs of ids that name no person in store s: its answer
// when it is an AbsentFinder, else those Exist leaves out.
func absentIn(s PeopleStore, ids []string) ([]string, error) {
	if f, ok := s.(AbsentFinder); ok {
		return f.Absent(ids)
	}
	found, err := s.Exist(ids)
	if err != nil {
		return nil, err
	}
	exist := make(map[string]bool, len(found))
	for _, id := range found {
		exist[id] = true
	}
	var out []string
	for _, id := range ids {
		if !exist[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

// Changed are the IDs of the people whose history holds a change, sorted
// (byte order).
func (b *Base) Changed() ([]string, error) {
	if b.store != nil {
		return b.store.Changed()
	}
	var ids []string
	for id, p := range b.mem {
		if len(p.History) > 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// CompanyDomain is what a person's enrichment tells of their company:
// its domain, and the company's name (the person's lead's, else the
// enrichment's). An exclude block by domain matches a colleague of the
// same company by it.
type CompanyDomain struct {
	Company, Domain string
}

// CompanyDomains are the companies and domains the enrichments give, each
// pair once, sorted; a pair with no company or no domain is left out.
func (b *Base) CompanyDomains() ([]CompanyDomain, error) { return b.CompanyDomainsOf(nil) }

// CompanyDomainsOf are CompanyDomains of the domains keep keeps (every
// domain for nil): an exclude block by domain learns only the domains it
// lists (config.Exclusion.ListsDomain), and a store then reads the
// companies of only those (the people of every enrichment else).
func (b *Base) CompanyDomainsOf(keep func(domain string) bool) ([]CompanyDomain, error) {
	var out []CompanyDomain
	if b.store != nil {
		var err error
		if out, err = b.store.CompanyDomains(keep); err != nil {
			return nil, err
		}
	} else {
		for _, p := range b.mem {
			if p.Enrichment == nil || (keep != nil && !keep(p.Enrichment.Result.CompanyDomain)) {
				continue
			}
			c := CompanyDomain{Company: p.Lead.Company, Domain: p.Enrichment.Result.CompanyDomain}
			if c.Company == "" {
				c.Company = p.Enrichment.Result.Company
			}
			out = append(out, c)
		}
	}
	out = slices.DeleteFunc(out, func(c CompanyDomain) bool { return c.Company == "" || c.Domain == "" })
	slices.SortFunc(out, func(x, y CompanyDomain) int {
		return cmp.Or(strings.Compare(x.Company, y.Company), strings.Compare(x.Domain, y.Domain))
	})
	return slices.Compact(out), nil
}

// EachPerson calls fn with every person in ID order (byte order), one page
// of the store in memory at a time; it stops at fn's first error and
// returns it.
func (b *Base) EachPerson(fn func(*Person) error) error {
	if b.store == nil {
		for _, id := range slices.Sorted(maps.Keys(b.mem)) {
			if err := fn(b.mem[id]); err != nil {
				return err
			}
		}
		return nil
	}
	return eachPage(b.pageSize(), b.store.After, fn)
}

// IDStreamer is a PeopleStore that may read every person's ID in one pass,
// sooner than by pages of IDs.
type IDStreamer interface {
	// StreamIDs calls fn with each person's ID in ID order (byte order),
	// as the store's other answers see them, until fn returns false; the
	// people can be read (PeopleStore) while it runs. An error ends it,
	// after the IDs it gave (none where the store cannot stream).
	StreamIDs(fn func(id string) bool) error
}

// PersonIDs yields every person's ID in ID order (byte order), then the
// error that stopped it, if any, with "". It reads them in one pass from
// a store that can (IDStreamer), otherwise (or from where that pass
// failed) a page of the store at a time.
func (b *Base) PersonIDs() iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if b.store == nil {
			for _, id := range slices.Sorted(maps.Keys(b.mem)) {
				if !yield(id, nil) {
					return
				}
			}
			return
		}
		after, page := "", b.pageSize()*5
		if st, ok := b.store.(IDStreamer); ok {
			stopped := false
			err := st.StreamIDs(func(id string) bool {
				after, stopped = id, !yield(id, nil)
				return !stopped
			})
			if stopped || err == nil {
				return
			}
			// The pages report the error if it stays.
		}
		for {
			ids, err := b.store.IDs(after, page)
			if err != nil {
				yield("", err)
				return
			}
			for _, id := range ids {
				if !yield(id, nil) {
					return
				}
			}
			if len(ids) < page {
				return
			}
			after = ids[len(ids)-1]
		}
	}
}

// TrackAddresses are the addresses of the track blocks whose reads some
// person holds, sorted (State.TrackAddresses of the whole state).
func (b *Base) TrackAddresses() ([]string, error) {
	if b.store == nil {
		return (&State{People: b.mem}).TrackAddresses(), nil
	}
	return b.store.Tracks()
}

// PeopleFacts are the counts over every person that `leadsync show`
// prints: what a store answers with a few queries instead of reading the
// people.
type PeopleFacts struct {
	// Total counts the people; Unlisted those no search, profile, import
	// or track lists (FoundBy empty).
	Total, Unlisted int
	// Enriched counts the people holding an enrichment; ByStatus those by
	// the status of its e-mail (person.StatusEmpty for none).
	Enriched int
	ByStatus map[string]int
	// History counts the changes of the people's histories (DriftCounts).
	History DriftCounts
	// Imported and Reused count the enrichments no credit was spent on
	// here (Unpaid).
	Imported, Reused int
	// QuotaCalls counts the calls of people's records that used the
	// monthly quota after the time asked (enrichments and first
	// generation track reads: QuotaPersonCalls).
	QuotaCalls int
}

// Facts counts the people of a state in memory; a store's Facts must give
// the same (backendtest checks it on each store).
func (s *State) Facts(quotaSince *time.Time) PeopleFacts {
	f := PeopleFacts{History: s.DriftCounts(), ByStatus: map[string]int{}}
	f.Imported, f.Reused = s.Unpaid()
	f.Total = len(s.People)
	for _, p := range s.People {
		if len(p.FoundBy) == 0 {
			f.Unlisted++
		}
		if p.Enrichment != nil {
			f.Enriched++
			f.ByStatus[p.Enrichment.Status()]++
		}
		if quotaSince != nil {
			f.QuotaCalls += p.QuotaCallsSince(*quotaSince)
		}
	}
	return f
}

// PeopleFacts counts the people (see PeopleFacts).
func (b *Base) PeopleFacts(quotaSince *time.Time) (PeopleFacts, error) {
	if b.store == nil {
		return (&State{People: b.mem}).Facts(quotaSince), nil
	}
	return b.store.Facts(quotaSince)
}

// Holding is the state as far as the record at addr goes: the records
// and the people that record names (a search's leads, a profile's
// person, an import's people, a track's people, the person of
// person.<id>), read from the store; every other person is left out. It
// is a state to show one address of (state show), not to change.
func (b *Base) Holding(addr string) (*State, error) {
	s, err := b.withLeads([]string{addr})
	if err != nil {
		return nil, err
	}
	var ids []string
	switch k := address.Kind(addr); k {
	case kind.Search:
		if sr := s.Searches[addr]; sr != nil {
			ids = sr.LeadIDs
		}
	case kind.Profile:
		if pr := s.Profiles[addr]; pr != nil {
			ids = []string{pr.PersonID}
		}
	case kind.Import:
		if im := s.Imports[addr]; im != nil {
			ids = im.PersonIDs
		}
	case kind.Track:
		if ids, err = b.trackPeople(addr); err != nil {
			return nil, err
		}
	case kind.Person:
		ids = []string{strings.TrimPrefix(addr, PersonAddressPrefix)}
	}
	people, err := b.People(ids)
	if err != nil {
		return nil, err
	}
	s.People = people
	return s, nil
}

// Reading is the state as far as a plan reads it (plan.Reads): the
// records, the lead lists of the searches named (packed from a store:
// Search.Leads), and the people of ids;
// every other person and lead list is left out. A plan made from it is
// the plan of the whole state; nothing is to be changed in it.
func (b *Base) Reading(searches, ids []string) (*State, error) {
	s, err := b.withPackedLeads(searches)
	if err != nil {
		return nil, err
	}
	if s.People, err = b.People(ids); err != nil {
		return nil, err
	}
	return s, nil
}

// withLeads is a copy of the records, without people, whose searches at
// addrs hold their lead lists (read from the store when the records were
// read without them); the others may not.
func (b *Base) withLeads(addrs []string) (*State, error) {
	s := *b.Records
	s.People = map[string]*Person{}
	s.idx = nil
	read, err := b.leadLists(addrs)
	if err != nil || len(read) == 0 {
		return &s, err
	}
	s.Searches = maps.Clone(s.Searches)
	for addr, ids := range read {
		cp := *s.Searches[addr]
		cp.LeadIDs = ids
		s.Searches[addr] = &cp
	}
	return &s, nil
}

// LeadLister is a PeopleStore that reads the lead lists of many searches
// at once: LeadIDs of each address of addrs that has a search record, by
// address.
type LeadLister interface {
	LeadLists(addrs []string) (map[string][]string, error)
}

// leadLists reads the lead lists of the searches at addrs that the
// records were read without, by address.
func (b *Base) leadLists(addrs []string) (map[string][]string, error) {
	return readLeadLists(b.store, addrs, b.listUnread)
}

// listUnread reports whether the records hold a search at addr that they
// were read without the lead list of.
func (b *Base) listUnread(addr string) bool {
	_, ok := b.kept[addr]
	return ok && b.Records.Searches[addr] != nil
}

// readLeadLists reads from store the lead lists of the addresses of addrs
// that unread reports, each once, by address: at once when store is a
// LeadLister, else one by one (and for an address it left out, so that
// its LeadIDs says why).
func readLeadLists(store PeopleStore, addrs []string, unread func(addr string) bool) (map[string][]string, error) {
	asked := askedOnce(addrs, unread)
	if len(asked) == 0 {
		return nil, nil
	}
	read := map[string][]string{}
	if l, ok := store.(LeadLister); ok {
		var err error
		if read, err = l.LeadLists(asked); err != nil {
			return nil, err
		}
	}
	for _, addr := range asked {
		if _, ok := read[addr]; ok {
			continue
		}
		ids, err := store.LeadIDs(addr)
		if err != nil {
			return nil, err
		}
		read[addr] = ids
	}
	return read, nil
}

// askedOnce are the addresses of addrs that unread reports, each once, in
// their order: the lead lists to ask a store for.
func askedOnce(addrs []string, unread func(addr string) bool) []string {
	var asked []string
	seen := map[string]bool{}
	for _, addr := range addrs {
		if !seen[addr] && unread(addr) {
			asked, seen[addr] = append(asked, addr), true
		}
	}
	return asked
}

// trackPeople are the IDs of the people whose reads the track at addr
// holds.
func (b *Base) trackPeople(addr string) ([]string, error) {
	if b.store == nil {
		var ids []string
		for id, p := range b.mem {
			if _, ok := p.Tracked[addr]; ok {
				ids = append(ids, id)
			}
		}
		return ids, nil
	}
	return b.store.Tracked(addr)
}
