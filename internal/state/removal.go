package state

import (
	"slices"
	"strings"
)

// What a partial state reads to fold a retention removal (readRemoval):
// the people it did not read are not kept whole, only what removing
// them changes (a goneForm each). They are read from the store a page at
// a time, in the removal form when the store gives it (RemovalReader:
// nobody decoded whole), and each is cut to a goneForm as it comes, so
// that an apply removing 1,000,000 people holds no Person of them. The fold then
// removes them as it removes the people read (forgetPeople), and the
// store deletes their rows (Changes.Removed).
//
// The forms sit beside the sorted IDs of the removal, not in a map keyed
// by the IDs read: those were cut from the rows' text and kept each row
// alive, and the map of 1,000,000 forms held 234 MB with them.

// goneForm is what removing a person a partial state read for that alone
// changes: the records that found them (lead lists, profile reads,
// imports) and the enrich block their enrichment counts against once
// they are gone, as indexes of the removal's texts (removalTexts: 12
// bytes a form, where the texts' own headers took 48). held is false
// for someone the store did not have, or whom the fold has removed
// already.
type goneForm struct {
	foundBy int32 // of removalTexts.lists
	by      int32 // of removalTexts.blocks; 0: no enrichment
	held    bool
	// removed is set when the fold took the form to remove its person
	// (take): Changes.Removed names them once the fold is done (flush).
	removed bool
}

// goneForms are the removal forms of one removal read: forms[i] is the
// form of ids[i] (sorted); left counts those held, taken those the fold
// removed. The IDs outlive the forms: they are the people the removal
// asked of the store (partial.isAsked), in place of 1,000,000 entries
// of partial.asked (50 MB), and Changes.Removed shares them (flush).
type goneForms struct {
	ids   []string
	forms []goneForm
	texts *removalTexts
	left  int
	taken int
}

// put keeps g as the form of id, when id is one of the removal's.
func (gf *goneForms) put(id string, g goneForm) {
	if i, ok := slices.BinarySearch(gf.ids, id); ok && !gf.forms[i].held {
		gf.forms[i] = g
		gf.left++
	}
}

// take is the person of id as the removal sees them (no Person of the
// state, only what forgetPeople asks), their form dropped from gf; nil
// when gf holds none.
func (gf *goneForms) take(id string) *Person {
	if gf.left == 0 { // none held, or flushed
		return nil
	}
	i, ok := slices.BinarySearch(gf.ids, id)
	if !ok || !gf.forms[i].held {
		return nil
	}
	g := gf.forms[i]
	gf.forms[i] = goneForm{removed: true}
	gf.left--
	gf.taken++
	p := &Person{ID: id, FoundBy: gf.texts.lists[g.foundBy]}
	if g.by != 0 {
		p.Enrichment = &Enrichment{By: gf.texts.blocks[g.by]}
	}
	return p
}

// has reports whether id is one of the removal's IDs.
func (gf *goneForms) has(id string) bool {
	_, ok := slices.BinarySearch(gf.ids, id)
	return ok
}

// flush lets go of the forms once the fold took some (the fold of a
// removal takes all it will at once) and returns the IDs of the people
// it removed: the removal's IDs themselves, not a copy, when it removed
// them all.
func (gf *goneForms) flush() []string {
	if gf.taken == 0 {
		if gf.left == 0 {
			gf.forms = nil // none held
		}
		return nil
	}
	removed := gf.ids
	if gf.taken < len(gf.ids) {
		removed = make([]string, 0, gf.taken)
		for i, g := range gf.forms {
			if g.removed {
				removed = append(removed, gf.ids[i])
			}
		}
	}
	gf.forms, gf.texts, gf.left, gf.taken = nil, nil, 0, 0
	return slices.Clip(removed)
}

// readRemoval reads what a retention removal of ids changes in a partial
// state: the people it has read (and those named by page name, whom
// State.Person may find by another ID) as ReadForgetting reads them; the
// others in their removal form (goneForm), a page at a time, taken out
// of the names the store counts (partial.others) as ReadPeople does. The
// lead lists of the searches that found only those are not read: the
// store cuts them (Changes.Cut).
func (s *State) readRemoval(ids []string) error {
	pt := s.partial
	whole, rest := pt.splitRemoval(ids)
	if err := s.ReadForgetting(whole); err != nil {
		return err
	}
	tx := newRemovalTexts()
	gf := &goneForms{ids: rest, forms: make([]goneForm, len(rest)), texts: tx}
	err := s.readPages(rest, removalGetter(pt.store), func(p *Person) {
		gf.put(p.ID, tx.formOf(p))
	}, nil)
	if err != nil {
		return err
	}
	// Asked once read whole: its IDs answer isAsked from now on.
	pt.gone = append(pt.gone, gf)
	return nil
}

// RemovalReader is a PeopleStore that reads people in the form a
// retention removal folds in (readRemoval), with nobody decoded whole.
type RemovalReader interface {
	// Removing reads the people of ids that exist, in no order, each
	// with what removing them changes alone: the ID, FoundBy, the
	// enrichment's By and CopiedBy (no result), Tracked, and one Drift
	// (By alone) for each call their history names.
	Removing(ids []string) ([]*Person, error)
}

// removalGetter reads the people of a page for a removal: in the
// removal form when the store gives it, else whole.
func removalGetter(store PeopleStore) func([]string) ([]*Person, error) {
	if rr, ok := store.(RemovalReader); ok {
		return rr.Removing
	}
	return store.Get
}

// Removing reads the people of ids in the removal form (RemovalReader)
// from the store; ok is false, and nothing read, when the store cannot
// (a state read whole, or a store that reads people whole alone).
func (b *Base) Removing(ids []string) (ps []*Person, ok bool, err error) {
	rr, ok := b.store.(RemovalReader)
	if !ok {
		return nil, false, nil
	}
	ps, err = rr.Removing(ids)
	return ps, true, err
}

// splitRemoval splits a removal's IDs into those read whole (asked
// before, or named by page name, whom State.Person may find by another
// ID) and the rest, sorted and each once. The rest is ids itself when
// it is all of them, sorted and each once (as retention writes the
// event): not a copy of 1,000,000 IDs.
func (pt *partial) splitRemoval(ids []string) (whole, rest []string) {
	readWhole := func(id string) bool {
		// A person in the removal form was asked when read (readPages).
		return pt.isAsked(id) || strings.HasPrefix(id, PagePrefix)
	}
	if !slices.ContainsFunc(ids, readWhole) && SortedOnce(ids) {
		return nil, ids
	}
	for _, id := range ids {
		if readWhole(id) {
			whole = append(whole, id)
		} else {
			rest = append(rest, id)
		}
	}
	slices.Sort(rest)
	return whole, slices.Compact(rest)
}

// SortedOnce reports whether ids are sorted, each once (a list of
// people to remove that need not be sorted again, nor copied to be).
func SortedOnce(ids []string) bool {
	for i := 1; i < len(ids); i++ {
		if ids[i-1] >= ids[i] {
			return false
		}
	}
	return true
}

// removalTexts hold each text the removal forms name once, not cut from
// the rows read (which they would keep alive): the lists of addresses
// that found someone, that of one address alone shared by the people it
// alone found, and the enrich blocks (blocks[0] is none).
type removalTexts struct {
	found  map[string]int32 // the list of the address alone
	lists  [][]string
	blocks []string
	block  map[string]int32
}

func newRemovalTexts() *removalTexts {
	return &removalTexts{found: map[string]int32{}, blocks: []string{""}, block: map[string]int32{}}
}

// alone is the list of addr alone, held once.
func (tx *removalTexts) alone(addr string) int32 {
	l, ok := tx.found[addr]
	if !ok {
		addr = strings.Clone(addr) // not the row's text
		l = tx.list([]string{addr})
		tx.found[addr] = l
	}
	return l
}

// list holds l, found by the index returned.
func (tx *removalTexts) list(l []string) int32 {
	tx.lists = append(tx.lists, l)
	return int32(len(tx.lists) - 1)
}

// formOf is the removal form of p, its texts held once.
func (tx *removalTexts) formOf(p *Person) goneForm {
	g := goneForm{held: true}
	if len(p.FoundBy) == 1 {
		g.foundBy = tx.alone(p.FoundBy[0])
	} else {
		l := make([]string, len(p.FoundBy))
		for i, addr := range p.FoundBy {
			l[i] = tx.lists[tx.alone(addr)][0]
		}
		g.foundBy = tx.list(l)
	}
	if e := p.Enrichment; e != nil {
		by, ok := tx.block[e.By]
		if !ok {
			tx.blocks = append(tx.blocks, strings.Clone(e.By))
			by = int32(len(tx.blocks) - 1)
			tx.block[tx.blocks[by]] = by
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
		if p := gf.take(id); p != nil {
			return p
		}
	}
	return nil
}

// removedAll notes, once the fold of a removal is done, the people it
// removed whom a partial state read in the removal form alone: no entry
// of the change's maps, only IDs of Changes.Removed (the store deletes
// their rows), shared with the removal's own when it removed them all.
// Their forms are dropped: the state never had the people.
func (s *State) removedAll() {
	if s.partial == nil {
		return
	}
	for _, gf := range s.partial.gone {
		removed := gf.flush()
		if s.changes == nil || len(removed) == 0 {
			continue
		}
		if len(s.changes.Removed) == 0 {
			s.changes.Removed = removed
		} else {
			s.changes.Removed = append(s.changes.Removed, removed...)
		}
	}
}

// cutInStore notes the search at addr as one whose lead list the store
// cuts (Changes.Cut), as a partial state's fold of a removal form does,
// and reports true: the list is not written whole, read or not (one read
// after comes cut: cutRead). False for a state read whole.
func (s *State) cutInStore(addr string) bool {
	if s.partial == nil || s.changes == nil {
		return false
	}
	s.changes.Cut[addr] = struct{}{}
	return true
}

// cutRead is ids, the lead list of the search at addr as read from the
// store, less the people of Changes.Removed while the store has not cut
// it yet (Changes.Cut): the list the fold would have cut, read before.
func (s *State) cutRead(addr string, ids []string) []string {
	if s.changes == nil {
		return ids
	}
	if _, ok := s.changes.Cut[addr]; !ok {
		return ids
	}
	return slices.DeleteFunc(ids, memberOf(s.changes.Removed))
}

// memberOf reports whether an ID is one of ids: a binary search when they
// are sorted, each once (one removal's, 1,000,000 of them), else a set.
func memberOf(ids []string) func(string) bool {
	if SortedOnce(ids) {
		return func(id string) bool {
			_, ok := slices.BinarySearch(ids, id)
			return ok
		}
	}
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	return func(id string) bool { return set[id] }
}
