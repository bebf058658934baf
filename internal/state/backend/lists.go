package backend

import "encoding/binary"

// ReleaseLists lets go of the header's searches' lists of people once
// their rows are written, for the rest of the push: at 3,000,000 people
// they are about 100 MB of small strings the collector walks at every
// cycle while the people pass. What the check of the references needs to
// name a missing person is kept packed (one string a search, no pointer
// inside), and put back if a reference turns out to be missing. A state
// held in memory (MemoryStream) keeps its lists: its header shares them
// with the caller's state.
func (p *PushSource) ReleaseLists() {
	if _, inMemory := p.src.(*memoryStream); inMemory || p.packed != nil {
		return
	}
	p.packed = make(map[string]string, len(p.Header.Searches))
	for addr, s := range p.Header.Searches {
		if len(s.LeadIDs) == 0 {
			continue
		}
		p.packed[addr] = packIDs(s.LeadIDs)
		s.LeadIDs = nil
	}
}

// restoreLists puts back the lists ReleaseLists let go of.
func (p *PushSource) restoreLists() {
	for addr, packed := range p.packed {
		if s := p.Header.Searches[addr]; s != nil {
			s.LeadIDs = unpackIDs(packed)
		}
	}
	p.packed = nil
}

// packIDs is ids as one string: each ID after its length (a varint).
func packIDs(ids []string) string {
	n := 0
	for _, id := range ids {
		n += binary.MaxVarintLen64 + len(id)
	}
	b := make([]byte, 0, n)
	for _, id := range ids {
		b = binary.AppendUvarint(b, uint64(len(id)))
		b = append(b, id...)
	}
	return string(b)
}

// unpackIDs is the list packIDs packed.
func unpackIDs(packed string) []string {
	var ids []string
	b := []byte(packed)
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		ids = append(ids, string(b[k:k+int(n)]))
		b = b[k+int(n):]
	}
	return ids
}
