package plan

import (
	"maps"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// The people held elsewhere that reuseReads left unread, met as the plan
// is built (heldMet, readHeld, heldToEnrich, dueAmong), counted by the
// census (heldCensused, countedLessCopies), and read by the apply before
// its last copy (readHeldMet, heldBefore).
// reuseUnread finds the people the other workspaces may give an
// enrichment of (findHeld) when reuseReads left them unread
// (reuseFacts.unread), because e's limit left no place, and the plan
// finds one (its copies aside): the whole state's plan may copy to it.
// The plan needs everyone when they cannot be found so. A census that
// finds no place lists them only for the members it counts unread
// (countedLessCopies): with none, no copy changes its plan.
func (v *env) reuseUnread(e *config.Enrich) {
	r := v.heldUnread()
	if r == nil || !r.unread {
		return
	}
	if v.placesForCopies(e) > 0 {
		v.findHeld(e)
	}
}

// placesForCopies are the places e's limit leaves its copies
// (placeCopies).
func (v *env) placesForCopies(e *config.Enrich) int {
	return max(e.Limit-(v.used(e)-v.copies[e.Address]), 0)
}

// metUnread returns the person collectRead meets at sources[i].ids[j]
// (id), not read, or nil: one held elsewhere as heldMet reads them, else
// one who takes a place the walk reads (placesWalk.person). A person held
// elsewhere the walk reads is asked about (askMet): beside several
// blocks, one met once e's copies took its places may take a place
// another block's claims free.
func (v *env) metUnread(e *config.Enrich, walk *placesWalk, sources []source, i, j int, id string, bp *blockPeople) *state.Person {
	if p, held := v.heldMet(e, sources, i, j, id, bp); held {
		walk.hand(id, p)
		return p
	}
	p := walk.person(i, j, id)
	if held, _ := v.heldUnread().heldRead(id); held {
		v.askMet(e, p)
	}
	return p
}

// heldMet returns the person collectRead meets at sources[i].ids[j] (id,
// not read) when the other workspaces may give them an enrichment and
// reuseReads left them unread (reuseFacts.partial): held says so, and p
// is nil when they are not counted. Met before e's copies so far
// (bp.reused) take every place, they may be copied: they are read whole
// with the next people held not read, a page at a time (readHeld), and
// counted wherever met from then on. Met after, they take no place and
// are not counted (countUnread tells the people past the places); beside
// several blocks, whose claims may free places, held is false: the walk
// reads them as it reads anyone not read (metUnread).
func (v *env) heldMet(e *config.Enrich, sources []source, i, j int, id string, bp *blockPeople) (p *state.Person, held bool) {
	r := v.heldUnread()
	switch held, read := r.heldRead(id); {
	case !held:
		return nil, false
	case read:
		v.askMet(e, r.met[id])
		return r.met[id], true
	}
	switch places := v.placesForCopies(e) - len(bp.reused); {
	case places > 0 && !v.facts.needsEveryone:
		v.readHeld(e, sources, i, j, places)
	case v.facts.many:
		return nil, false // a place another block frees: the walk's (metUnread)
	}
	return r.met[id], true
}

// askMet asks the other workspaces about p, a person held elsewhere
// read as another block met them (or nil), for e too (asksAbout), as
// lookupReuse asks about each person read for every block. A failed
// question is the plan's (fail).
func (v *env) askMet(e *config.Enrich, p *state.Person) {
	if p == nil {
		return
	}
	if err := v.askAbout(e, map[string]*state.Person{p.ID: p}); err != nil {
		v.facts.fail(err)
	}
}

// readHeld reads whole the people held not read met from
// sources[i].ids[j] on, in order, each once (reuseFacts.met), a page at a
// time (heldPage). Past heldReadMost people read so, the plan needs
// everyone. When the store or the other workspaces cannot answer, Err
// says why.
func (v *env) readHeld(e *config.Enrich, sources []source, i, j, places int) {
	v.heldGC()
	r := v.facts.reuse
	r.page = r.heldPage(places, v.heldReadMost())
	ids := firstIDs(sources, i, j, r.page, func(id string) bool {
		_, read := r.met[id]
		return read || !r.held[id] || v.known(id)
	})
	people, err := v.readAsked(e, ids)
	if err != nil {
		v.facts.fail(err)
	}
	if people == nil {
		return
	}
	if r.met == nil {
		r.met = make(map[string]*state.Person, len(ids))
	}
	for _, id := range ids {
		r.met[id] = people[id]
	}
}

// heldPage is the size of the next page of people held readHeld reads:
// twice the places left for copies and 16 more, or twice the last page
// when that is more (copies met mostly take no place), at most walkChunk.
// It stops at most (heldReadMost), but for one more person, whose read
// makes the plan need everyone (readAsked).
func (f *reuseFacts) heldPage(places, most int) int {
	n := min(walkChunk, max(2*places+16, 2*f.page), most-f.read)
	return max(n, 1)
}

// heldReadMost is the most people held the plan reads whole as its
// blocks meet or count them (reuseFacts.read, one count for every
// block): maxHeldRead, or half the people the planned blocks' sources
// list when more. Those are their lead lists' lengths, each source once,
// as the census counts them, but never more than the state's people
// (statePeople, the count readsMost weighs the claims' reads against): a
// person several searches list is one person. Past half, reading them by
// ID costs more than one read of everyone. It is counted once
// (reuseFacts.most, mostKnown).
func (v *env) heldReadMost() int {
	r := v.facts.reuse
	if !r.mostKnown {
		listed := 0
		for _, addr := range v.plannedSources() {
			listed += v.sourcePeople(addr).Len()
		}
		if size, ok := v.facts.statePeople(); ok {
			listed = min(listed, size)
		}
		r.most, r.mostKnown = max(maxHeldRead, listed/heldListedPart), true
	}
	return r.most
}

// plannedSources are the sources of the enrich blocks the plan's facts
// count (EnrichFacts.blocks), each once.
func (v *env) plannedSources() []string {
	seen := map[string]bool{}
	var from []string
	for _, e := range v.cfg.Enriches {
		if v.facts.blocks[e.Address] == nil {
			continue
		}
		for _, addr := range v.cfg.Resolve(e.From) {
			if !seen[addr] {
				seen[addr] = true
				from = append(from, addr)
			}
		}
	}
	return from
}

// heldToEnrich returns the people of ids (held elsewhere, not read)
// whom e would enrich past its places (placesWalk.count): those the
// store's sketches show holding no enrichment fresh for e (dueAmong),
// read whole and asked about (readAsked), that collect puts among the
// people to enrich, not among the copies (candidate). None is excluded or given an
// e-mail by an import: the plan read those whole (excludedReads,
// meetImports), as countAmong takes for the people it asks about.
func (v *env) heldToEnrich(e *config.Enrich, ids []string) ([]string, error) {
	if e.Where != nil {
		v.facts.needUnread(e.Address) // not evaluated here
		return nil, nil
	}
	ids, err := v.dueAmong(e, ids)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	people, err := v.readHeldAsked(e, ids)
	if err != nil || people == nil {
		return nil, err
	}
	var found []string
	for _, id := range ids {
		p := people[id]
		if p == nil || p.Lead.PageName == "" || !v.needsEnrich(e, p) {
			continue
		}
		if _, copied := v.reusable(e, p); !copied {
			found = append(found, id)
		}
	}
	return found, nil
}

// readHeldAsked is readAsked of the people of ids not read yet; those
// another block read as it met them (reuseFacts.met) are not read again,
// but asked about for e (askAbout).
func (v *env) readHeldAsked(e *config.Enrich, ids []string) (map[string]*state.Person, error) {
	r := v.facts.reuse
	met := map[string]*state.Person{}
	var unread []string
	for _, id := range ids {
		if p, read := r.met[id]; read {
			met[id] = p
		} else {
			unread = append(unread, id)
		}
	}
	people := map[string]*state.Person{}
	if len(unread) > 0 {
		read, err := v.readAsked(e, unread)
		if err != nil || read == nil {
			return nil, err
		}
		people = read
	}
	maps.Copy(people, met)
	return people, v.askAbout(e, met)
}

// dueAmong are the people of ids (not read) but those the store's
// sketches (SketchedAmong) show holding an enrichment fresh for e, as
// countAmong tells them: neither copied nor to enrich, they are not read.
func (v *env) dueAmong(e *config.Enrich, ids []string) ([]string, error) {
	sketches, err := v.facts.store.SketchedAmong(ids)
	if err != nil {
		return nil, err
	}
	fresh := make(map[string]bool, len(sketches))
	for _, s := range sketches {
		fresh[s.ID] = !v.needsEnrich(e, s)
	}
	var due []string
	for _, id := range ids {
		if !fresh[id] {
			due = append(due, id)
		}
	}
	return due, nil
}

// readAsked reads whole the people of ids, held elsewhere and not read,
// and asks the other workspaces about them as lookupReuse asks. Past
// heldReadMost people read so (reuseFacts.read) it reads none: nil, and
// the plan of e needs everyone.
func (v *env) readAsked(e *config.Enrich, ids []string) (map[string]*state.Person, error) {
	r := v.facts.reuse
	if r.read+len(ids) > v.heldReadMost() {
		v.facts.needUnread(e.Address)
		return nil, nil
	}
	r.read += len(ids)
	people, err := v.facts.readWhole(ids)
	if err != nil {
		return nil, err
	}
	// e's questions: another block meeting them asks its own (askMet).
	return people, v.askAbout(e, people)
}

// askAbout asks the other workspaces about the people of people read
// whole for e, as lookupReuse asks about the people read (asksAbout),
// each key once.
func (v *env) askAbout(e *config.Enrich, people map[string]*state.Person) error {
	var keys []string
	for _, p := range people {
		if p != nil && v.asksAbout(e, p) {
			keys = v.unaskedKeys(keys, p)
		}
	}
	return v.askKeys(keys)
}

// heldRead reports whether id names a person held elsewhere that
// reuseReads left unread (reuseFacts.partial), and whether the plan read
// them as it met them (met).
func (f *reuseFacts) heldRead(id string) (held, read bool) {
	if f == nil || !f.partial || !f.held[id] {
		return false, false
	}
	_, read = f.met[id]
	return true, read
}

// metHeld reports whether the plan read id, a person held elsewhere,
// as a block met them (heldMet): counted where met, like the people read.
func (v *env) metHeld(id string) bool {
	_, read := v.heldUnread().heldRead(id)
	return read
}

// leftUnread reports whether reuseReads left some of the people the other
// workspaces hold unread (reuseFacts.unread, partial).
func (f *reuseFacts) leftUnread() bool {
	return f != nil && (f.unread || f.partial)
}

// heldUnread are the facts of the people held elsewhere (reuseFacts) when
// the plan asks the other workspaces (env.lookup), else nil. A plan made
// again by Within asks nothing, though its facts were made with the
// lookup (run.partialEnrich): the people held are then people not read
// like any other, whom no copy takes a place from.
func (v *env) heldUnread() *reuseFacts {
	if v.lookup == nil || v.facts == nil {
		return nil
	}
	return v.facts.reuse
}

// needUnread makes the plan of the block at addr need everyone: the
// people not read are to be told apart, and some are held elsewhere.
func (f *EnrichFacts) needUnread(addr string) {
	f.needsEveryone = true
	f.undecide(addr)
}

// readHeldMet reads, over the partial state of an apply (v), the next
// people held elsewhere whom e's lead lists name and the state does not
// hold, in from order, while e's copies (copies so far) leave places, a
// copy of someone e enriched taking none: a page that grows
// (nextHeldPage). With no place
// left, it reads every one met before the last copy, who may take its
// place, in one walk, walkChunk at a time (heldBefore).
// The plan read only the first of them (firstHeld), and those its walk
// met (heldMet), which skips the sources that run: should such a run
// fail, e walks the lead lists it held before, as the whole state's
// apply does, and copies whom it meets there. more says some were read:
// the copies are to be collected again.
func (c *Candidates) readHeldMet(v *env, e *config.Enrich, copies []reusedPerson) (more bool, err error) {
	if c.held == nil || v.facts == nil {
		return false, nil
	}
	places := v.placesForCopies(e) - v.placesTaken(e, reusedMembers(copies))
	if e.Limit > 0 && places <= 0 {
		if len(copies) == 0 {
			return false, nil
		}
		return c.heldBefore(v, e, copies[len(copies)-1].p)
	}
	want := c.nextHeldPage(places)
	var ids []string
	for _, addr := range v.cfg.Resolve(e.From) {
		for _, id := range v.sourcePeople(addr).All() {
			if c.heldUnmet(v, id) {
				if ids = append(ids, id); len(ids) == want {
					return true, v.st.ReadPeople(ids)
				}
			}
		}
	}
	return len(ids) > 0, v.st.ReadPeople(ids)
}

// nextHeldPage is the size of the next page of people held readHeldMet
// reads while e's copies leave places: twice those places and 16 more,
// or twice the last page when that is more. Each page costs the block's
// collect again (Reuses): H people held met before the copies take the
// places cost about log H pages, not H/18 when no copy comes. It has no
// cap (walkChunk): State.ReadPeople asks the store PeoplePage people at
// a time, and the people read stay in the state however they are
// paged; a cap would cost H/walkChunk collects.
func (c *Candidates) nextHeldPage(places int) int {
	c.heldPage = max(2*max(places, 0)+16, 2*c.heldPage)
	return c.heldPage
}

// heldBefore reads the people held elsewhere not read whom e's lead
// lists name before last (e's last copy), in one walk of them, walkChunk
// at a time: each may take last's place. more says some were read.
func (c *Candidates) heldBefore(v *env, e *config.Enrich, last *state.Person) (more bool, err error) {
	var ids []string
	for _, addr := range v.cfg.Resolve(e.From) {
		for _, id := range v.sourcePeople(addr).All() {
			if v.metIn(id) == last {
				return more || len(ids) > 0, v.st.ReadPeople(ids)
			}
			if !c.heldUnmet(v, id) {
				continue
			}
			if ids = append(ids, id); len(ids) == walkChunk {
				if err := v.st.ReadPeople(ids); err != nil {
					return true, err
				}
				more, ids = true, nil
			}
		}
	}
	return more || len(ids) > 0, v.st.ReadPeople(ids)
}

// heldUnmet reports whether id names a person held elsewhere that the
// state does not hold and readHeldMet has not read yet, and marks them
// read (heldAsked).
func (c *Candidates) heldUnmet(v *env, id string) bool {
	if !c.held[id] || c.heldAsked[id] || v.st.People[id] != nil {
		return false
	}
	c.heldAsked[id] = true
	return true
}

// heldCensused tells the copies of e's census (collectCensus) from its
// people to enrich, as the whole state's plan does, when people held
// elsewhere were left unread (reuseFacts.partial or unread). The other
// workspaces are asked about the candidates it read whole (whole), as
// lookupReuse asks about the people read. Those it counted without a
// read (EnrichFacts.counted, a block at its limit) that are held
// elsewhere are read whole and asked about (countedLessCopies): a copy
// past the places is nobody to enrich.
func (v *env) heldCensused(e *config.Enrich, whole map[string]*state.Person) {
	r := v.heldUnread()
	if !r.leftUnread() {
		return
	}
	if err := v.askAbout(e, whole); err != nil {
		v.facts.fail(err)
		return
	}
	if err := v.countedLessCopies(e, r); err != nil {
		v.facts.fail(err)
	}
}

// countedLessCopies leaves out of the people e's census counted to
// enrich without reading them (EnrichFacts.counted) those held elsewhere
// (r.held) whom heldToEnrich finds copied, not to enrich. The people held
// are found (findHeld) only when some were counted so; the plan needs
// everyone when they cannot be. A block with a where counted them read
// whole, a page at a time, each page asked about (candidatePages.ask):
// its count holds no copy, and is left as it is.
func (v *env) countedLessCopies(e *config.Enrich, r *reuseFacts) error {
	if e.Where != nil {
		return nil // its copies told apart as it counted: candidatePages.ask
	}
	ids := v.facts.counted[e.Address]
	if ids.len() == 0 {
		return nil
	}
	if known := v.findHeld(e); !known {
		return nil
	}
	var held []string
	for id := range ids.all {
		if r.held[id] {
			held = append(held, id)
		}
	}
	if len(held) == 0 {
		return nil
	}
	found, err := v.heldToEnrich(e, held)
	if err != nil || v.facts.needsEveryone {
		return err
	}
	toEnrich := make(map[string]bool, len(found))
	for _, id := range found {
		toEnrich[id] = true
	}
	kept := &placedIDs{lists: ids.lists, starts: ids.starts}
	for i, k := range ids.ks {
		if id := ids.at(i); !r.held[id] || toEnrich[id] {
			kept.add(int(k))
		}
	}
	v.facts.countedBy(e, kept)
	return nil
}
