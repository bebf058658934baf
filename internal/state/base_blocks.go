package state

import (
	"github.com/leadsync/leadsync/internal/kind"
)

// BlockPeople are the IDs of the people the state holds of the block
// instance at addr, of kind k (leadsync output): a search's leads, a profile's
// person, an import's people, the people an enrich block enriched
// (Enriched) or a track block read. recorded is false when the state
// holds nothing of it (not run yet; an enrich or track block without
// people).
func (b *Base) BlockPeople(k kind.Kind, addr string) (ids []string, recorded bool, err error) {
	switch k {
	case kind.Search:
		if b.Records.Searches[addr] == nil {
			return nil, false, nil
		}
		ids, err = b.leadIDs(addr)
		return ids, err == nil, err
	case kind.Profile:
		pr := b.Records.Profiles[addr]
		if pr == nil || pr.PersonID == "" {
			return nil, pr != nil, nil
		}
		return []string{pr.PersonID}, true, nil
	case kind.Import:
		if im := b.Records.Imports[addr]; im != nil {
			return im.PersonIDs, true, nil
		}
	case kind.Enrich:
		ids, err = b.Enriched(addr)
		return ids, len(ids) > 0, err
	case kind.Track:
		ids, err = b.trackPeople(addr)
		return ids, len(ids) > 0, err
	}
	return nil, false, nil
}

// BlockCount is the number of BlockPeople(addr), and recorded: a
// search's leads and an enrich block's people are counted without reading
// them from the store.
func (b *Base) BlockCount(k kind.Kind, addr string) (n int, recorded bool, err error) {
	switch k {
	case kind.Search:
		return b.Kept(addr), b.Records.Searches[addr] != nil, nil
	case kind.Enrich:
		if b.store == nil {
			break
		}
		n, err := b.store.CountEnriched(addr)
		return n, n > 0, err
	}
	ids, recorded, err := b.BlockPeople(k, addr)
	return len(ids), recorded, err
}

// leadIDs are the lead IDs of the search record at addr, read from the
// store when the records were read without them.
func (b *Base) leadIDs(addr string) ([]string, error) {
	if _, ok := b.kept[addr]; ok {
		return b.store.LeadIDs(addr)
	}
	if sr := b.Records.Searches[addr]; sr != nil {
		return sr.LeadIDs, nil
	}
	return nil, nil
}

// Enriched are the IDs of the people holding an enrichment of the enrich
// block at addr: one it made (Enrichment.By), or one it copied from
// another workspace (Enrichment.CopiedBy); in no order.
func (b *Base) Enriched(addr string) ([]string, error) {
	if b.store != nil {
		return b.store.Enriched(addr)
	}
	var ids []string
	for id, p := range b.mem {
		if e := p.Enrichment; e != nil && (e.By == addr || e.CopiedBy == addr) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}
