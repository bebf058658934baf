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
// removes them as it removes the people read (forgetPeople), and the
// store deletes their rows (Changes.Removed).
//
// The forms sit beside the sorted IDs of the removal, not in a map keyed
// by the IDs read: those were cut from the rows' text and kept each row
// alive, and the map of 1,000,000 forms held 234 MB with them.

// goneForm is what removing a person a partial state read for that alone
// changes: the records that found them (lead lists, profile reads,
// imports) and the enrich block their enrichment counts against once
// they are gone ("" for none). held is false for someone the store did
// not have, or whom the fold has removed already.
type goneForm struct {
	foundBy []string
	by      string
	held    bool
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

// goneForms are the removal forms of one removal read: forms[i] is the
// form of ids[i] (sorted); left counts those held.
type goneForms struct {
	ids   []string
	forms []goneForm
	left  int
}

// put keeps g as the form of id, when id is one of the removal's.
func (gf *goneForms) put(id string, g goneForm) {
	if i, ok := slices.BinarySearch(gf.ids, id); ok && !gf.forms[i].held {
		gf.forms[i] = g
		gf.left++
	}
}

// take is the form of id, dropped from gf; ok is false when gf holds none.
func (gf *goneForms) take(id string) (g goneForm, ok bool) {
	i, ok := slices.BinarySearch(gf.ids, id)
	if !ok || !gf.forms[i].held {
		return goneForm{}, false
	}
	g, gf.forms[i] = gf.forms[i], goneForm{}
	gf.left--
	return g, true
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
	slices.Sort(rest) // sorted already when retention wrote the event
	rest = slices.Compact(rest)
	gf := &goneForms{ids: rest, forms: make([]goneForm, len(rest))}
	pt.gone = append(pt.gone, gf)
	if s.changes != nil { // room for their IDs once (removeForm)
		s.changes.Removed = slices.Grow(s.changes.Removed, len(rest))
	}
	tx := removalTexts{found: map[string][]string{}, blocks: map[string]string{}}
	err := s.readPages(rest, func(p *Person) {
		gf.put(p.ID, tx.formOf(p))
	})
	if err != nil {
		return err
	}
	addrs := make([]string, 0, len(tx.found))
	for addr := range tx.found {
		addrs = append(addrs, addr)
	}
	return s.ReadLeadsOf(addrs)
}

// removalTexts hold each text the removal forms name once, not cut from
// the rows read (which they would keep alive): the addresses that found
// someone, each with the list of it alone that the people it alone
// found share, and the enrich blocks.
type removalTexts struct {
	found  map[string][]string
	blocks map[string]string
}

// alone is the list of addr alone, held once.
func (tx removalTexts) alone(addr string) []string {
	l, ok := tx.found[addr]
	if !ok {
		l = []string{addr}
		tx.found[addr] = l
	}
	return l
}

// formOf is the removal form of p, its texts held once.
func (tx removalTexts) formOf(p *Person) goneForm {
	g := goneForm{held: true}
	if len(p.FoundBy) == 1 {
		g.foundBy = tx.alone(p.FoundBy[0])
	} else {
		g.foundBy = make([]string, len(p.FoundBy))
		for i, addr := range p.FoundBy {
			g.foundBy[i] = tx.alone(addr)[0]
		}
	}
	if e := p.Enrichment; e != nil {
		by, ok := tx.blocks[e.By]
		if !ok {
			by = e.By
			tx.blocks[by] = by
		}
		g.by = by
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
	for _, gf := range s.partial.gone {
		if g, ok := gf.take(id); ok {
			return g.person(id)
		}
	}
	return nil
}

// removedAll lets go of the removal forms the fold has taken all of.
func (s *State) removedAll() {
	if s.partial != nil {
		s.partial.gone = slices.DeleteFunc(s.partial.gone, func(gf *goneForms) bool { return gf.left == 0 })
	}
}

// removeForm notes the removal of the person of id whom a partial state
// read in the removal form alone: no entry of the change's maps, only an
// ID of Changes.Removed (the store deletes their rows). Nothing else
// holds them: the form is dropped (removed), and the state never had
// the person.
func (s *State) removeForm(id string) {
	if s.changes != nil {
		s.changes.Removed = append(s.changes.Removed, id)
	}
}
