package state

import "maps"

// LeadPacker is a PeopleStore that reads the lead lists of many searches
// at once, packed (IDList): each list one text of its IDs end to end and
// their ends (none for IDs of one length), read straight from the store's
// rows into shared slabs (ListPacker). The lists of 3,000,000 leads of 14
// characters take 42 MB so, against 99 MB as strings (docs/performance.md,
// "Lead lists packed", "The lead lists packed (twelfth round)").
type LeadPacker interface {
	PackedLeadLists(addrs []string) (map[string]IDList, error)
}

// withPackedLeads is withLeads with the lists read packed when the store
// is a LeadPacker: their searches' LeadIDs are nil, Search.Leads gives
// them. A plan reads the lists through Leads only.
func (b *Base) withPackedLeads(addrs []string) (*State, error) {
	p, ok := b.store.(LeadPacker)
	if !ok {
		return b.withLeads(addrs)
	}
	asked := askedOnce(addrs, b.listUnread)
	s := *b.Records
	s.People = map[string]*Person{}
	s.idx = nil
	if len(asked) == 0 {
		return &s, nil
	}
	read, err := p.PackedLeadLists(asked)
	if err != nil {
		return nil, err
	}
	s.Searches = maps.Clone(s.Searches)
	for _, addr := range asked {
		cp := *s.Searches[addr]
		cp.LeadIDs = nil
		if l, ok := read[addr]; ok {
			cp.Packed = &l
		} else {
			// Left out by the store: its LeadIDs says why.
			ids, err := b.store.LeadIDs(addr)
			if err != nil {
				return nil, err
			}
			cp.LeadIDs = ids
		}
		s.Searches[addr] = &cp
	}
	return &s, nil
}
