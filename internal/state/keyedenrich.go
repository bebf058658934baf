package state

import "slices"

// EnrichmentKeyReader is a store that reads, of some people, what another
// workspace asks of them when it would copy their enrichments: their
// lookup keys' lead fields (LookupKeys) and their enrichments alone, not
// the people whole (Base.KeyedEnrichments). The SQL stores give it.
type EnrichmentKeyReader interface {
	// KeyedEnrichments reads the people of ids holding an enrichment, in
	// no order, each holding its ID, network ID, page name and whole
	// enrichment alone.
	KeyedEnrichments(ids []string) ([]*Person, error)
}

// KeyedEnrichments calls fn with the people of ids holding an
// enrichment, a page of at most PageSize at a time: from a store that is
// an EnrichmentKeyReader, each holding its ID, its network ID, its page
// name and its enrichment alone; else read whole. It stops at fn's first
// error and returns it.
func (b *Base) KeyedEnrichments(ids []string, fn func([]*Person) error) error {
	read := b.enrichedWhole
	if r, ok := b.store.(EnrichmentKeyReader); ok {
		read = r.KeyedEnrichments
	}
	for page := range slices.Chunk(ids, b.pageSize()) {
		ps, err := read(page)
		if err != nil {
			return err
		}
		if err := fn(ps); err != nil {
			return err
		}
	}
	return nil
}

// enrichedWhole are the people of ids holding an enrichment, read whole
// (People).
func (b *Base) enrichedWhole(ids []string) ([]*Person, error) {
	people, err := b.People(ids)
	if err != nil {
		return nil, err
	}
	var out []*Person
	for _, p := range people {
		if p.Enrichment != nil {
			out = append(out, p)
		}
	}
	return out, nil
}
