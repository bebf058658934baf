package state

import (
	"slices"
	"strings"
)

// What a partial state reads to fold a retention removal (readRemoval):
// the people it did not read are not kept whole, only what removing
// them changes (a goneForm each). They are read from the store a page at
// a time, and each is cut to that form as it comes, so that an apply
// removing 1,000,000 people holds no Person of them. The fold then
// removes them as it removes the people read (forgetPeople).

// goneForm is what removing a person a partial state read for that alone
// changes: the records that found them (lead lists, profile reads,
// imports) and the enrich block their enrichment counts against once
// they are gone ("" for none).
type goneForm struct {
	foundBy []string
	by      string
}

// person is the person of ID id as the removal sees them: no Person of
// the state, only what forgetPeople asks.
func (g goneForm) person(id string) *Person {
	p := &Person{ID: id, FoundBy: g.foundBy}
	if g.by != "" {
		p.Enrichment = &Enrichment{By: g.by}
	}
	return p
}

// readRemoval reads what a retention removal of ids changes in a partial
// state: the people it has read (and those named by page name, whom
// State.Person may find by another ID) as ReadForgetting reads them; the
// others in their removal form (goneForm), a page at a time, taken out
// of the names the store counts (partial.others) as ReadPeople does; and
// the lead lists of the searches that found them all.
func (s *State) readRemoval(ids []string) error {
	pt := s.partial
	var whole, rest []string
	for _, id := range ids {
		// A person in the removal form was asked when read (readPages).
		if pt.asked[id] || strings.HasPrefix(id, PagePrefix) {
			whole = append(whole, id)
		} else {
			rest = append(rest, id)
		}
	}
	if err := s.ReadForgetting(whole); err != nil {
		return err
	}
	slices.Sort(rest)            // sorted already when retention wrote the event
	found := map[string]string{} // each address once, and one text of it
	err := s.readPages(slices.Compact(rest), func(p *Person) {
		s.partial.gone[p.ID] = goneFormOf(p, found)
	})
	if err != nil {
		return err
	}
	addrs := make([]string, 0, len(found))
	for addr := range found {
		addrs = append(addrs, addr)
	}
	return s.ReadLeadsOf(addrs)
}

// goneFormOf is the removal form of p; found gathers the addresses that
// found them, each held once.
func goneFormOf(p *Person, found map[string]string) goneForm {
	g := goneForm{foundBy: make([]string, len(p.FoundBy))}
	for i, addr := range p.FoundBy {
		if held, ok := found[addr]; ok {
			addr = held
		} else {
			found[addr] = addr
		}
		g.foundBy[i] = addr
	}
	if p.Enrichment != nil {
		g.by = p.Enrichment.By
	}
	return g
}

// removed is the person of id whom a partial state read in the removal
// form alone (readRemoval), nil for anyone else; once asked, the form is
// dropped: the fold removes them.
func (s *State) removed(id string) *Person {
	if s.partial == nil {
		return nil
	}
	g, ok := s.partial.gone[id]
	if !ok {
		return nil
	}
	delete(s.partial.gone, id)
	return g.person(id)
}

// removedAll lets go of the removal forms once the removal is folded: a
// map keeps its room when emptied (64 MB at 1,000,000 people).
func (s *State) removedAll() {
	if s.partial != nil && len(s.partial.gone) == 0 {
		s.partial.gone = map[string]goneForm{}
	}
}
