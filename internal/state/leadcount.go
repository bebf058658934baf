package state

// CountLeads gives s, a Reading or the Writable of b, the store's count
// of the lead IDs of each search of addrs whose list the records were
// read without, so that LeadCount answers for it without reading the
// list. A search whose list s reads is not to be among addrs.
func (b *Base) CountLeads(s *State, addrs []string) {
	for _, addr := range addrs {
		n, ok := b.kept[addr]
		if !ok || s.Searches[addr] == nil {
			continue
		}
		if s.counts == nil {
			s.counts = map[string]int{}
		}
		s.counts[addr] = n
	}
}

// LeadCount is the number of lead IDs of the search at addr: the
// store's count while its list is counted and not read (CountLeads),
// else its list's (Search.Kept); 0 when there is no such search. Ask it
// before an apply folds its events, as the plan does: a list a removal
// cut before it was read counts as its list in memory, none. The
// records' own count is Base.Kept.
func (s *State) LeadCount(addr string) int {
	sr := s.Searches[addr]
	if sr == nil {
		return 0
	}
	if n, ok := s.counts[addr]; ok && s.countHolds(addr) {
		return n
	}
	return sr.Kept()
}

// countHolds reports whether the store's count of the lead list at addr
// still holds in s: always in a Reading; in a partial state, while the
// list is unread and no removal cut it (Changes.Cut).
func (s *State) countHolds(addr string) bool {
	pt := s.partial
	if pt == nil {
		return true
	}
	if _, unread := pt.unread[addr]; !unread {
		return false
	}
	if s.changes == nil {
		return true
	}
	_, cut := s.changes.Cut[addr]
	return !cut
}
