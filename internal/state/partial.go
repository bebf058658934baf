package state

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A partial state is a State to change that holds its records and only the
// people an operation touches (state rm, state mv): Base.Writable makes
// it from a stored Base, and the operation reads the people it needs
// (ReadRecord, ReadMoving; Fold reads those of an EventForget or an
// EventMove itself) before it folds, then commits the Changes. What the records do not say
// (the track addresses, the addresses people's records name: Holds,
// MovableAddresses) is answered from counts the store gives (Names),
// less the people read, plus the people read as they are now.
//
// The guard: a change naming a person the state never asked the store for,
// or a search whose lead IDs it never read, is refused by the writers
// (CheckWrite) rather than written: a person missing from People would
// be deleted. A partial state never replaces a whole state (CheckWhole).

// Names counts, by address, the people whose records name the address in
// each way a move carries: the enrich block of their enrichment, the block
// that copied it, the tracks that read them, the calls that saw a change
// of them (a person counts once per address in each).
type Names struct {
	Enriched, Copied, Tracked, History map[string]int
}

// NamesOf counts the people of ps as Names says (a store's Names must
// give the same over all its people: backendtest checks it).
func NamesOf(ps map[string]*Person) Names {
	n := Names{Enriched: map[string]int{}, Copied: map[string]int{}, Tracked: map[string]int{}, History: map[string]int{}}
	for _, p := range ps {
		n.add(p, 1)
	}
	return n
}

// add counts p's names d times (-1: takes them out).
func (n *Names) add(p *Person, d int) {
	if p.Enrichment != nil {
		n.Enriched[p.Enrichment.By] += d
		if p.Enrichment.CopiedBy != "" {
			n.Copied[p.Enrichment.CopiedBy] += d
		}
	}
	for addr := range p.Tracked {
		n.Tracked[addr] += d
	}
	seen := map[string]bool{}
	for _, h := range p.History {
		if !seen[h.By] {
			seen[h.By] = true
			n.History[h.By] += d
		}
	}
}

// named adds to set the addresses n counts someone at.
func (n *Names) named(set map[string]bool, tracksOnly bool) {
	groups := []map[string]int{n.Tracked}
	if !tracksOnly {
		groups = append(groups, n.Enriched, n.Copied, n.History)
	}
	for _, g := range groups {
		for addr, c := range g {
			if c > 0 {
				set[addr] = true
			}
		}
	}
}

// partial is what a partial state knows of the people it did not read.
type partial struct {
	store PeopleStore
	// asked are the person IDs asked of the store: read, or known not to
	// be in the state; with those of gone (isAsked).
	asked map[string]bool
	// unread counts the lead IDs of the searches whose LeadIDs are not
	// read yet, by address.
	unread map[string]int
	// others counts the names of the people not read (the store's Names
	// less those of the people read, as they were read).
	others Names
	// records are the addresses read by ReadRecord: read once, so that
	// a fold after the reads needs no store.
	records map[string]bool
	// pages are the page keys (PageKey) whose people were read: every
	// person of the store a page name of the key finds.
	pages map[string]bool
	// pageOnly are the people read, known by page name only, whose
	// searches' lead lists readRekeyed has not read yet.
	pageOnly map[string]bool
	// gone are the people read for a retention removal alone, in the
	// form the removal needs (readRemoval) until it folds, then their
	// sorted IDs alone: one batch for each removal read.
	gone []*goneForms
	// unfolded is set when an event could not be folded in (its reads
	// failed, or its kind is not read for): the state lacks a result its
	// journal holds, so nothing more of it is written (CheckWrite).
	unfolded error
	// folded is set by the first event folded in: lead lists read packed
	// after it would hold the people a removal took out (ReadLeadsPacked
	// refuses them).
	folded bool
}

// Writable is the State to change of the Base: the state read whole
// (the state Load gave) when the Base is not stored, else a partial state
// of the Base's records (see partial.go) that reads its people from the
// Base's store, tracking its changes. The Base must stay open while the
// state reads people; close it before the commit.
func (b *Base) Writable() (*State, error) {
	if b.store == nil {
		if b.whole != nil {
			b.whole.Epoch = b.Records.Epoch // set by the backend on the Base
			return b.whole, nil
		}
		s := *b.Records
		s.People, s.idx = b.mem, nil
		return &s, nil
	}
	names, err := b.store.Names()
	if err != nil {
		return nil, err
	}
	s := *b.Records
	s.People, s.idx, s.changes = map[string]*Person{}, nil, nil
	s.Searches = maps.Clone(s.Searches)
	s.partial = &partial{store: b.store, asked: map[string]bool{}, unread: maps.Clone(b.kept), others: names,
		records: map[string]bool{}, pages: map[string]bool{}, pageOnly: map[string]bool{}}
	s.Track()
	if u, ok := b.store.(Unpinner); ok {
		if err := u.Unpin(); err != nil {
			return nil, err
		}
	}
	return &s, nil
}

// Unpinner is a PeopleStore that can end its snapshot and read each
// later question from the state as committed. Writable asks it to: the
// caller holds the workspace's lock, so only its own writes change the
// state meanwhile, and a partial state never asks again for a person or
// a lead list it read (and only those it changes). A snapshot kept open
// while an apply of many calls commits each one would keep SQLite from
// emptying its write-ahead log, and PostgreSQL from cleaning up the rows
// the calls replaced.
type Unpinner interface {
	Unpin() error
}

// Partial reports whether s holds only the people it read (see
// partial.go).
func (s *State) Partial() bool { return s.partial != nil }

// ReadPeople reads the people of ids s did not ask for yet from its store
// (nothing for a state read whole).
func (s *State) ReadPeople(ids []string) error {
	pt := s.partial
	if pt == nil {
		return nil
	}
	var want []string
	seen := map[string]bool{}
	for _, id := range ids {
		if !pt.isAsked(id) && !seen[id] {
			seen[id] = true
			want = append(want, id)
		}
	}
	return s.readPages(want, pt.store.Get, s.takeRead, pt.asked)
}

// takeRead puts p, read from the store, into s (ReadPeople).
func (s *State) takeRead(p *Person) {
	s.addRead(p)
	if strings.HasPrefix(p.ID, PagePrefix) {
		s.partial.pageOnly[p.ID] = true
	}
}

// HoldRead makes s hold the people of read, by ID: whole records another
// reader of s's store read since s was made (a plan's walk:
// plan.EnrichFacts.WalkedPeople), as ReadPeople would read them, without
// asking the store again: records as the store holds them, not moved
// (plan.EnrichFacts.Hold reads moved ones again). The IDs s asked for
// already are left. At
// 1,000,000 people beside a workspace holding 200,000 of them, reading
// the 150,556 people a plan walked again took 1.9-3.3 s and 161 MB.
// Nothing for a state read whole.
func (s *State) HoldRead(read map[string]*Person) {
	pt := s.partial
	if pt == nil {
		return
	}
	var want []string
	for id := range read {
		if pt.isAsked(id) {
			continue
		}
		want = append(want, id)
	}
	held := func(ids []string) ([]*Person, error) {
		ps := make([]*Person, 0, len(ids))
		for _, id := range ids {
			if p := read[id]; p != nil {
				ps = append(ps, p)
			}
		}
		return ps, nil
	}
	_ = s.readPages(want, held, s.takeRead, pt.asked) // held never fails
}

// isAsked reports whether the person of id was asked of the store: in
// asked, or one of the people a retention removal read in its form
// (their sorted IDs answer).
func (pt *partial) isAsked(id string) bool {
	if pt.asked[id] {
		return true
	}
	return slices.ContainsFunc(pt.gone, func(gf *goneForms) bool { return gf.has(id) })
}

// readPages reads the people of ids (none asked before, each named once)
// a page at a time with get (the store's Get, or its removal form:
// readRemoval), takes each out of the names the store counts
// (partial.others) and hands them to take, moved as the journal's
// pending moves say (pendingMoved), and notes each page's IDs in asked
// (unless nil: a removal's IDs answer for themselves).
func (s *State) readPages(ids []string, get func([]string) ([]*Person, error), take func(p *Person), asked map[string]bool) error {
	pt := s.partial
	for start := 0; start < len(ids); start += PeoplePage {
		page := ids[start:min(start+PeoplePage, len(ids))]
		ps, err := get(page)
		if err != nil {
			return err
		}
		for _, p := range ps {
			p = s.pendingMoved(p)
			pt.others.add(p, -1)
			take(p)
		}
		// Asked once read: a person of a page that failed is no one to
		// write.
		if asked != nil {
			for _, id := range page {
				asked[id] = true
			}
		}
	}
	return nil
}

// addRead puts a person read from the store into People and, when the
// page-name index is built, into it, as Fold keeps it up to date: built
// again after every read, it made each fold cost in proportion to the
// people read so far.
func (s *State) addRead(p *Person) {
	_, had := s.People[p.ID]
	s.People[p.ID] = p
	if ix := s.idx; ix != nil && !had && ix.people == len(s.People)-1 {
		ix.people = len(s.People)
		s.indexPage(p)
		return
	}
	s.idx = nil // built again on first use
}

// ReadLeads reads the lead IDs of the search at addr when s has not.
func (s *State) ReadLeads(addr string) error {
	pt := s.partial
	if pt == nil {
		return nil
	}
	if _, ok := pt.unread[addr]; !ok || s.Searches[addr] == nil {
		return nil
	}
	ids, err := pt.store.LeadIDs(addr)
	if err != nil {
		return err
	}
	s.putRead(addr, ids)
	return nil
}

// ReadLeadsOf reads the lead IDs of the searches at addrs that s has
// not read, in one question to a store that reads lead lists at once
// (LeadLister).
func (s *State) ReadLeadsOf(addrs []string) error {
	pt := s.partial
	if pt == nil {
		return nil
	}
	read, err := readLeadLists(pt.store, addrs, func(addr string) bool {
		_, ok := pt.unread[addr]
		return ok && s.Searches[addr] != nil
	})
	if err != nil {
		return err
	}
	for addr, ids := range read {
		s.putRead(addr, ids)
	}
	return nil
}

// putRead makes ids, the lead list of the search at addr as read from the
// store, its LeadIDs (cut as the removals folded since say: cutRead), in
// place of the list read packed (ReadLeadsPacked) if any: the list is
// read.
func (s *State) putRead(addr string, ids []string) {
	cp := *s.Searches[addr]
	cp.LeadIDs, cp.Packed = s.cutRead(addr, ids), nil
	s.Searches[addr] = &cp
	delete(s.partial.unread, addr)
}

// ReadRecord reads the people the record at addr names, and what
// removing it changes: a search's lead IDs and leads, a profile's person,
// an import's people, a track's people, the person of person.<id> with
// the lead IDs of the searches that found them.
func (s *State) ReadRecord(addr string) error {
	if s.partial == nil || s.partial.records[addr] {
		return nil
	}
	s.partial.records[addr] = true
	if err := s.ReadLeads(addr); err != nil {
		return err
	}
	var ids []string
	if sr := s.Searches[addr]; sr != nil {
		ids = append(ids, sr.LeadIDs...)
	}
	if pr := s.Profiles[addr]; pr != nil {
		ids = append(ids, pr.PersonID)
	}
	if im := s.Imports[addr]; im != nil {
		ids = append(ids, im.PersonIDs...)
	}
	if s.hasTrack(addr) {
		tracked, err := s.partial.store.Tracked(addr)
		if err != nil {
			return err
		}
		ids = append(ids, tracked...)
	}
	if id, ok := strings.CutPrefix(addr, PersonAddressPrefix); ok {
		if err := s.ReadPeople([]string{id}); err != nil || s.People[id] == nil {
			return err
		}
		if err := s.ReadLeadsOf(s.People[id].FoundBy); err != nil {
			return err
		}
	}
	return s.ReadPeople(ids)
}

// ReadMoving reads what a move of the addresses from changes that the
// store does not rename itself: the lead lists of their searches, whose
// records move (written again whole). The people the moves name are not
// read: the fold moves those read, and the store renames the others'
// rows when the changes are written (renames.go).
func (s *State) ReadMoving(from []string) error {
	if s.partial == nil {
		return nil
	}
	return s.ReadLeadsOf(from)
}

// foldable validates e and, in a partial state, reads what folding it
// changes (readFor) unless it was folded already, and notes that an
// event is folded in (partial.folded).
func (s *State) foldable(e *Event) error {
	if err := e.Validate(); err != nil {
		return err
	}
	if s.partial == nil || s.folded(e) {
		return nil
	}
	if err := s.readFor(e); err != nil {
		if s.partial.unfolded == nil {
			s.partial.unfolded = fmt.Errorf("%s %s: %w", e.Kind, e.Address, err)
		}
		return err
	}
	s.partial.folded = true
	return nil
}

// CheckWrite is the guard of a partial state's writes, which it refuses
// with a RefusedError. It refuses changes that name a person s never
// asked its store for (writing them would delete the person). It refuses
// a search whose lead IDs s never read (writing it would drop them). Once
// an event could not be folded in, it refuses every change (a write would
// take the recorded event out of the journal). Nil for a state read
// whole.
func (s *State) CheckWrite(ch *Changes) error {
	pt := s.partial
	if pt == nil || ch == nil {
		return nil
	}
	if pt.unfolded != nil {
		// Written, the rows would drop from the journal a result they
		// do not hold: it stays there, and the next command folds it
		// into the state read whole.
		return refused("refusing to write a state read in part that could not fold a recorded result (%v): nothing was written; the result is kept with the state, and the next command folds it in", pt.unfolded)
	}
	for id := range ch.People {
		if !pt.isAsked(id) {
			return refused("refusing to write person %s, whom this state read in part never read (writing would delete them): nothing was written", id)
		}
	}
	for _, id := range ch.Removed {
		if read := pt.isAsked(id); !read {
			return refused("refusing to remove person %s, whom this state read in part never read: nothing was written", id)
		}
	}
	for addr := range ch.Searches {
		if _, ok := pt.unread[addr]; ok && s.Searches[addr] != nil {
			return refused("refusing to write search %s, whose lead IDs this state read in part never read (writing would drop them): nothing was written", addr)
		}
	}
	return nil
}

// RefusedError is a write CheckWrite or CheckWhole refuses: nothing was
// written, and writing again refuses it again, so it is never tried
// again. Its cause is a bug of the caller, or an event this state could
// not fold in (a read that failed), after which every write is refused.
type RefusedError struct{ msg string }

func (e *RefusedError) Error() string { return e.msg }

// refused is a RefusedError of the message format makes of args.
func refused(format string, args ...any) error {
	return &RefusedError{msg: fmt.Sprintf(format, args...)}
}

// CheckWhole refuses a partial state where a whole state is written (a
// state file, a replace): its missing people would be lost.
func (s *State) CheckWhole() error {
	if s.partial != nil {
		return refused("a state read in part cannot be written whole (the people it did not read would be lost): nothing was written")
	}
	return nil
}

// otherNames adds to set the addresses the people a partial state did not
// read name (only tracks' with tracksOnly).
func (s *State) otherNames(set map[string]bool, tracksOnly bool) {
	if s.partial != nil {
		s.partial.others.named(set, tracksOnly)
	}
}

// EnrichedCounts counts, by enrich block, the people holding an
// enrichment the block made (Enrichment.By) and those holding one it
// copied (CopiedBy), as NamesOf counts them: in a partial state, the
// people read as they are now and the others as the store counted them
// (Names), so that the counts follow every fold without a person more
// read. ok is false for a state read whole (count its people).
func (s *State) EnrichedCounts() (made, copied map[string]int, ok bool) {
	pt := s.partial
	if pt == nil {
		return nil, nil, false
	}
	made, copied = map[string]int{}, map[string]int{}
	maps.Copy(made, pt.others.Enriched)
	maps.Copy(copied, pt.others.Copied)
	for _, p := range s.People {
		if e := p.Enrichment; e != nil {
			made[e.By]++
			if e.CopiedBy != "" {
				copied[e.CopiedBy]++
			}
		}
	}
	return made, copied, true
}

// Names counts the addresses the people's records name (NamesOf of every
// person; a stored Base asks its store).
func (b *Base) Names() (Names, error) {
	if b.store == nil {
		return NamesOf(b.mem), nil
	}
	return b.store.Names()
}
