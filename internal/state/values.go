package state

import (
	"errors"
	"slices"
)

// ValueLister is a store that lists what exclude blocks match people by
// (config.ValuesOf) from its columns, without reading a person: the plan
// of an enrich block with exclude blocks matches them in memory and reads
// whole only the people they may name (plan.EnrichReadsOf). The SQL
// stores give it, each list one pass over a table.
type ValueLister interface {
	// PeopleValues calls fn with the ID, company, page name and network
	// ID of every person, in no order. The bytes hold only during the
	// call.
	PeopleValues(fn func(id, company, pageName, networkID []byte)) error
	// EnrichmentValues calls fn with the person's ID and the company,
	// e-mail and company domain of every enrichment (made by a block,
	// imported or copied), in no order. The bytes hold only during the
	// call.
	EnrichmentValues(fn func(id, company, email, domain []byte)) error
}

// errNoValues: the store lists no values (ValueLister).
var errNoValues = errors.New("the store does not list the people's values")

// PeopleValues: see ValueLister; a state in memory lists its people.
func (b *Base) PeopleValues(fn func(id, company, pageName, networkID []byte)) error {
	if b.store != nil {
		l, ok := b.store.(ValueLister)
		if !ok {
			return errNoValues
		}
		return l.PeopleValues(fn)
	}
	for _, id := range b.memIDs() {
		p := b.mem[id]
		fn([]byte(id), []byte(p.Lead.Company), []byte(p.Lead.PageName), []byte(p.Lead.NetworkID))
	}
	return nil
}

// EnrichmentValues: see ValueLister; a state in memory lists its people's
// enrichments.
func (b *Base) EnrichmentValues(fn func(id, company, email, domain []byte)) error {
	if b.store != nil {
		l, ok := b.store.(ValueLister)
		if !ok {
			return errNoValues
		}
		return l.EnrichmentValues(fn)
	}
	for _, id := range b.memIDs() {
		if e := b.mem[id].Enrichment; e != nil {
			r := e.Result
			fn([]byte(id), []byte(r.Company), []byte(r.Email), []byte(r.CompanyDomain))
		}
	}
	return nil
}

// ValuesListed reports whether b lists the people's values (ValueLister):
// a state read whole does, a store when it gives them.
func (b *Base) ValuesListed() bool {
	if b.store == nil {
		return true
	}
	_, ok := b.store.(ValueLister)
	return ok
}

// memIDs are the IDs of the people in memory, sorted.
func (b *Base) memIDs() []string {
	ids := make([]string, 0, len(b.mem))
	for id := range b.mem {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
