package state

import "strings"

// NetworkFinder is a PeopleStore that finds people by network ID (the
// index people_network_id): with PageFinder and Exist, the people whose
// lookup keys another workspace holds an enrichment for (Base.Keyed).
type NetworkFinder interface {
	// Networked are the IDs of the people whose network ID is one of
	// nids, in no order.
	Networked(nids []string) ([]string, error)
}

// Keyed are the IDs of the people one of whose LookupKeys is among keys,
// and perhaps a few more (a person whose ID is a network ID of keys), in
// no order: the people another workspace may give an enrichment of
// (plan.EnrichReadsOf with reuse). ok is false when the store cannot
// find people so.
func (b *Base) Keyed(keys []string) (ids []string, ok bool, err error) {
	if b.store == nil {
		want := make(map[string]bool, len(keys))
		for _, k := range keys {
			want[k] = true
		}
		for _, id := range b.memIDs() {
			for _, k := range LookupKeys(b.mem[id]) {
				if want[k] {
					ids = append(ids, id)
					break
				}
			}
		}
		return ids, true, nil
	}
	nf, ok1 := b.store.(NetworkFinder)
	pf, ok2 := b.store.(PageFinder)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	var nids, pages []string
	for _, k := range keys {
		if n, ok := strings.CutPrefix(k, "n:"); ok {
			nids = append(nids, n)
		} else if p, ok := strings.CutPrefix(k, "p:"); ok {
			pages = append(pages, p)
		}
	}
	if len(nids) > 0 {
		// A person without a network ID is looked up by their ID
		// (LookupKeys): those found by ID too.
		found, err := b.store.Exist(nids)
		if err != nil {
			return nil, false, err
		}
		ids = append(ids, found...)
		if found, err = nf.Networked(nids); err != nil {
			return nil, false, err
		}
		ids = append(ids, found...)
	}
	if len(pages) > 0 {
		found, err := pf.Paged(pages)
		if err != nil {
			return nil, false, err
		}
		ids = append(ids, found...)
	}
	return ids, true, nil
}
