package state

import (
	"slices"
	"strings"
)

// NetworkFinder is a PeopleStore that finds people by network ID (the
// index people_network_id): with PageFinder and Exist, the people whose
// lookup keys another workspace holds an enrichment for (Base.Keyed).
type NetworkFinder interface {
	// Networked are the IDs of the people whose network ID is one of
	// nids, in no order.
	Networked(nids []string) ([]string, error)
}

// Keyed are the IDs of the people one of whose LookupKeys is among keys,
// and perhaps a few more (a person whose ID is a network ID of keys),
// sorted, each once: the people another workspace may give an enrichment
// of (plan.EnrichReadsOf with reuse). ok is false when the store cannot
// find people so.
func (b *Base) Keyed(keys []string) (ids []string, ok bool, err error) {
	if b.store == nil {
		return b.memKeyed(keys), true, nil
	}
	nf, ok1 := b.store.(NetworkFinder)
	pf, ok2 := b.store.(PageFinder)
	if !ok1 || !ok2 {
		return nil, false, nil
	}
	nids, pages := splitKeys(keys)
	if ids, err = b.networked(nf, nids); err != nil {
		return nil, false, err
	}
	if len(pages) > 0 {
		found, err := pf.Paged(pages)
		if err != nil {
			return nil, false, err
		}
		ids = append(ids, found...)
	}
	slices.Sort(ids)
	return slices.Compact(ids), true, nil
}

// memKeyed is Keyed of the people held in memory: one pass over their
// keys.
func (b *Base) memKeyed(keys []string) []string {
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	var ids []string
	for _, id := range b.memIDs() {
		if slices.ContainsFunc(LookupKeys(b.mem[id]), func(k string) bool { return want[k] }) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// splitKeys are the network IDs and the page names of keys, their
// prefixes cut.
func splitKeys(keys []string) (nids, pages []string) {
	for _, k := range keys {
		if n, ok := strings.CutPrefix(k, "n:"); ok {
			nids = append(nids, n)
		} else if p, ok := strings.CutPrefix(k, "p:"); ok {
			pages = append(pages, p)
		}
	}
	return nids, pages
}

// networked are the IDs of the people whose network ID is one of nids
// (nf), and of those whose ID is one: a person without a network ID is
// looked up by their ID (LookupKeys). A person found by a network ID
// that is their ID, as the service's IDs mostly are, is not looked up
// again by it: each network ID costs one look, not two (at 1,000,000
// people every person was found twice, and by their page name again).
func (b *Base) networked(nf NetworkFinder, nids []string) ([]string, error) {
	if len(nids) == 0 {
		return nil, nil
	}
	ids, err := nf.Networked(nids)
	if err != nil {
		return nil, err
	}
	byNetwork := slices.Sorted(slices.Values(ids))
	unfound := slices.DeleteFunc(slices.Clone(nids), func(n string) bool {
		_, found := slices.BinarySearch(byNetwork, n)
		return found
	})
	if len(unfound) == 0 {
		return ids, nil
	}
	found, err := b.store.Exist(unfound)
	if err != nil {
		return nil, err
	}
	return append(ids, found...), nil
}

// EnrichedLeadPager is a PeopleStore that reads the lead fields of the
// lookup keys (LookupKeys) of the people holding an enrichment, a page
// at a time in ID order, in one query a page (Base.EnrichedLeadsAfter).
// The SQL stores give it.
type EnrichedLeadPager interface {
	// EnrichedLeadsAfter gives fn, in ID order, up to n people holding
	// an enrichment whose IDs sort after after, each holding its ID,
	// network ID and page name alone (fn's only while it runs), and
	// returns how many it gave.
	EnrichedLeadsAfter(after string, n int, fn func(*Person)) (int, error)
}

// EnrichedLeadsAfter gives fn, in ID order, up to n people of b's store
// holding an enrichment whose IDs sort after after, each holding its ID,
// network ID and page name alone (EnrichedLeadPager), and returns how
// many it gave. A store that is none lists their IDs
// (AppendEnrichedAfter), then reads the two fields by ID (SketchLeads).
func (b *Base) EnrichedLeadsAfter(after string, n int, fn func(*Person)) (int, error) {
	if p, ok := b.store.(EnrichedLeadPager); ok {
		return p.EnrichedLeadsAfter(after, n, fn)
	}
	ids, err := b.AppendEnrichedAfter(nil, after, n)
	if err != nil {
		return 0, err
	}
	page := make([]*Person, len(ids))
	for i, id := range ids {
		page[i] = &Person{ID: id}
	}
	if err := b.SketchLeads(page, []string{"pageName", "networkId"}); err != nil {
		return 0, err
	}
	for _, p := range page {
		fn(p)
	}
	return len(page), nil
}
