package state

import "errors"

// ErrPackedAfterFold is the error of State.ReadLeadsPacked called on a
// partial state that folded an event since Writable made it: a misuse
// (the lists it would read may hold people the fold removed).
var ErrPackedAfterFold = errors.New("lead lists read packed after a fold: State.ReadLeadsPacked comes right after Base.Writable, before any event is folded in")

// ReadLeadsPacked reads the lead lists of the searches at addrs that s
// has not read, packed (Search.Packed, read through Leads), as
// Base.Reading reads them for a plan. A store that packs lists
// (LeadPacker) gives them in one question: 10,000 lists of 300 IDs take
// 40 MB so, against 95 MB as strings. The lists such a store leaves out,
// and every list of another store, are read as ReadLeadsOf reads them.
//
// A list read packed stays unread. A fold that changes it reads it as
// LeadIDs first (ReadLeads and ReadLeadsOf drop the packed list); until
// then the guard of the writes (CheckWrite) refuses it. A retention
// removal cuts the packed lists (cutPacked).
//
// Call it right after Writable, before any fold: a list in the store
// still holds the people a removal folded since, whom only a list read as
// LeadIDs leaves out (cutRead). Called after a fold, it reads nothing
// and says so (ErrPackedAfterFold). It does nothing for a state read
// whole.
func (s *State) ReadLeadsPacked(addrs []string) error {
	pt := s.partial
	if pt == nil {
		return nil
	}
	if pt.folded {
		return ErrPackedAfterFold
	}
	if p, ok := pt.store.(LeadPacker); ok {
		if err := s.readPacked(p, askedOnce(addrs, s.packable)); err != nil {
			return err
		}
	}
	var rest []string
	for _, addr := range addrs {
		if sr := s.Searches[addr]; sr != nil && sr.Packed == nil {
			rest = append(rest, addr)
		}
	}
	return s.ReadLeadsOf(rest)
}

// packable reports whether the lead list of the search at addr is to be
// read packed: s has a search there whose list it read in no form.
func (s *State) packable(addr string) bool {
	_, unread := s.partial.unread[addr]
	sr := s.Searches[addr]
	return unread && sr != nil && sr.Packed == nil
}

// readPacked reads the lead lists of the searches at addrs packed from p
// into their Packed. A list p leaves out is left unread.
func (s *State) readPacked(p LeadPacker, addrs []string) error {
	if len(addrs) == 0 {
		return nil
	}
	read, err := p.PackedLeadLists(addrs)
	if err != nil {
		return err
	}
	for addr, l := range read {
		cp := *s.Searches[addr]
		cp.Packed = &l
		s.Searches[addr] = &cp
	}
	return nil
}

// cutPacked takes the people of gone out of the packed lead lists of the
// searches at addrs, as a retention removal's fold takes them out of the
// lists it read. A plan's question after it (plan.Candidates) then finds
// them gone, as in the state read whole. The store cuts its own lists
// (Changes.Cut).
func (s *State) cutPacked(addrs, gone map[string]bool) {
	for addr := range addrs {
		cp := *s.Searches[addr]
		l := cp.Packed.Without(func(id string) bool { return gone[id] })
		cp.Packed = &l
		s.Searches[addr] = &cp
	}
}
