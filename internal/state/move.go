package state

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"
)

// EventMove moves records from addresses to others without a call: a
// search, profile, enrich or track block renamed, moved into a module or
// given for_each or count (a moved block, or leadsync state mv).
// Everything the records hold follows them: a search's results and split
// runs, a profile read, the last failure, the people found (FoundBy), the
// enrichments an enrich block made (Enrichment.By, and those of people
// erased since, in ErasedEnrichments) and its enrichments of unknown
// outcome, and the changes of people each call saw (History[].By), so that
// a moved block is neither run nor paid for again, its limit counts what
// it spent and a sheet of its changes keeps them. A track's record moves
// with its people (Person.Tracked: when it read each), so that the moved
// track keeps watching them and reads none of them again before they are
// due. An import block's record moves too (the people it adopted, the
// digest of the file). Its Address is MovesAddress.
const EventMove EventKind = "move"

// MovesAddress is the address of move events.
const MovesAddress = "moves"

// MoveEvent lists the moves of one EventMove, each from one instance
// address (or enrich block) to another; the caller resolves block and
// module moves to them.
type MoveEvent struct {
	Moves []Move `json:"moves"`
}

// Move is one address moved.
type Move struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// validateMove checks an EventMove: every move names two different
// addresses, no address is moved twice, and none receives twice.
func (e *Event) validateMove() error {
	if e.Move == nil || len(e.Move.Moves) == 0 {
		return fmt.Errorf("move event has no moves")
	}
	from, to := map[string]bool{}, map[string]bool{}
	for _, m := range e.Move.Moves {
		switch {
		case m.From == "" || m.To == "":
			return fmt.Errorf("move event: a move without an address")
		case m.From == m.To:
			return fmt.Errorf("move event: %s moved onto itself", m.From)
		case from[m.From]:
			return fmt.Errorf("move event: %s moved twice", m.From)
		case to[m.To]:
			return fmt.Errorf("move event: two moves onto %s", m.To)
		}
		from[m.From], to[m.To] = true, true
	}
	return nil
}

// Holds reports whether s holds anything at addr that a move would carry:
// a search, a split run, a profile read, a failure, enrichments of an
// enrich block (known, erased since, or of unknown outcome), or a track's
// record (the people it read). A move onto
// an address that holds something is refused (MoveConflicts).
func (s *State) Holds(addr string) bool {
	return s.holds(addr, s.enrichers())
}

// holds is Holds with the addresses of the enrich blocks that enriched
// someone (enrichers) found once.
func (s *State) holds(addr string, enrichers map[string]bool) bool {
	return s.Searches[addr] != nil || s.Profiles[addr] != nil || s.Failures[addr] != nil || s.Splits[addr] != nil ||
		s.Imports[addr] != nil || s.ErasedEnrichments[addr] > 0 || enrichers[addr]
}

// enrichers are the addresses that people's records name: the enrich
// blocks whose enrichments s holds (known or of unknown outcome), the
// tracks that read someone (Person.Tracked), and the calls that saw a
// change of someone (their history: a track, a search).
func (s *State) enrichers() map[string]bool {
	out := map[string]bool{}
	for _, u := range s.UnknownEnrichments {
		out[u.By] = true
	}
	s.otherNames(out, false)
	for _, p := range s.People {
		if p.Enrichment != nil {
			out[p.Enrichment.By] = true
			if p.Enrichment.CopiedBy != "" {
				out[p.Enrichment.CopiedBy] = true
			}
		}
		for addr := range p.Tracked {
			out[addr] = true
		}
		for _, d := range p.History {
			out[d.By] = true
		}
	}
	return out
}

// MovableAddresses are the addresses s holds records at that a move
// carries (see Holds), sorted.
func (s *State) MovableAddresses() []string {
	set := s.enrichers()
	for a := range s.Searches {
		set[a] = true
	}
	for a := range s.Profiles {
		set[a] = true
	}
	for a := range s.Failures {
		set[a] = true
	}
	for a := range s.Splits {
		set[a] = true
	}
	for a := range s.Imports {
		set[a] = true
	}
	for a, n := range s.ErasedEnrichments {
		if n > 0 {
			set[a] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// MoveConflicts returns the moves of ms whose destination holds something
// in s already (that is not itself moved away by ms), or whose block holds
// something in its other form (instances of a block moved onto without a
// key, or the reverse: see move_forms.go): moving there would mix two
// records, so such a move is refused before anything is written.
func (s *State) MoveConflicts(ms []Move) []Move {
	leaving := map[string]bool{}
	for _, m := range ms {
		leaving[m.From] = true
	}
	var enrichers map[string]bool
	var forms blockForms
	var out []Move
	for _, m := range ms {
		if leaving[m.To] {
			continue
		}
		if enrichers == nil {
			enrichers, forms = s.enrichers(), s.heldForms(leaving)
		}
		if s.holds(m.To, enrichers) || len(forms.otherForm(m.To)) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// foldMove moves the records of every move of ev. A move onto an address
// that holds something is skipped (MoveConflicts refuses it before it is
// recorded), so that no record is ever overwritten.
func (s *State) foldMove(ev *MoveEvent) {
	to := make(map[string]string, len(ev.Moves))
	for _, m := range ev.Moves {
		to[m.From] = m.To
	}
	for _, m := range s.MoveConflicts(ev.Moves) {
		delete(to, m.From)
	}
	if len(to) == 0 {
		return
	}
	// Take every record first, then put them down: a move of a to b and
	// of b to c in one event must not lose b's record.
	s.putRecords(to, s.takeRecords(to))
	for id, u := range s.UnknownEnrichments {
		if dst, ok := to[u.By]; ok {
			c := *u
			c.By = dst
			s.UnknownEnrichments[id] = &c
			s.touchMeta()
		}
	}
	for id, p := range s.People {
		if !personMoves(p, to) {
			continue
		}
		c, history := movedPerson(p, to)
		s.People[id] = c
		if history {
			s.touchHistory(id, -1) // entries changed, not added: all again
		} else {
			s.touchPerson(id)
		}
	}
	s.renameStored(to)
}

// addressed are the records of a move's sources, by source address,
// while they are moved.
type addressed struct {
	searches map[string]*Search
	profiles map[string]*ProfileRead
	failures map[string]*Failure
	splits   map[string]*SplitTree
	imports  map[string]*ImportRecord
	erased   map[string]int
}

// takeRecords takes the records of every source of to out of s.
func (s *State) takeRecords(to map[string]string) addressed {
	r := addressed{
		searches: map[string]*Search{},
		profiles: map[string]*ProfileRead{},
		failures: map[string]*Failure{},
		splits:   map[string]*SplitTree{},
		imports:  map[string]*ImportRecord{},
		erased:   map[string]int{},
	}
	for from := range to {
		if takeRecord(s.Searches, r.searches, from) {
			s.touchSearch(from)
		}
		if takeRecord(s.Profiles, r.profiles, from) {
			s.touchProfile(from)
		}
		if takeRecord(s.Failures, r.failures, from) {
			s.touchFailure(from)
		}
		if takeRecord(s.Splits, r.splits, from) {
			s.touchMeta()
		}
		if takeRecord(s.Imports, r.imports, from) {
			s.touchMeta()
		}
		if n, ok := s.ErasedEnrichments[from]; ok {
			r.erased[from] = n
			delete(s.ErasedEnrichments, from)
			s.touchMeta()
		}
	}
	return r
}

// takeRecord moves the record m holds at from, if any, to out, and
// reports whether there was one.
func takeRecord[T any](m, out map[string]*T, from string) bool {
	x := m[from]
	if x == nil {
		return false
	}
	out[from] = x
	delete(m, from)
	return true
}

// putRecords puts the records r took down at their destinations, each
// named by its new address.
func (s *State) putRecords(to map[string]string, r addressed) {
	for from, dst := range to {
		if x := r.searches[from]; x != nil {
			c := *x
			c.Address = dst
			s.Searches[dst] = &c
			s.touchSearch(dst)
		}
		if x := r.profiles[from]; x != nil {
			c := *x
			c.Address = dst
			s.Profiles[dst] = &c
			s.touchProfile(dst)
		}
		if x := r.failures[from]; x != nil {
			s.Failures[dst] = x
			s.touchFailure(dst)
		}
		if x := r.splits[from]; x != nil {
			if s.Splits == nil {
				s.Splits = map[string]*SplitTree{}
			}
			s.Splits[dst] = x
		}
		if x := r.imports[from]; x != nil {
			if s.Imports == nil {
				s.Imports = map[string]*ImportRecord{}
			}
			c := *x
			c.Address = dst
			s.Imports[dst] = &c
		}
		if n, ok := r.erased[from]; ok {
			if s.ErasedEnrichments == nil {
				s.ErasedEnrichments = map[string]int{}
			}
			s.ErasedEnrichments[dst] += n
		}
	}
}

// movedPerson is a copy of p with the addresses of to moved: the block
// that enriched them, the searches that found them, the tracks that read
// them (when each did: the track's record) and the calls that saw each
// change of their history (history reports whether any did). People
// are copied, never changed in place, so that a state copied for planning
// (Moved) leaves the original as it was.
func movedPerson(p *Person, to map[string]string) (c *Person, history bool) {
	cp := *p
	if p.Enrichment != nil && (to[p.Enrichment.By] != "" || to[p.Enrichment.CopiedBy] != "") {
		e := *p.Enrichment
		if dst := to[e.By]; dst != "" {
			e.By = dst
		}
		if dst := to[e.CopiedBy]; dst != "" {
			e.CopiedBy = dst
		}
		cp.Enrichment = &e
	}
	cp.FoundBy = make([]string, len(p.FoundBy))
	for i, a := range p.FoundBy {
		if dst := to[a]; dst != "" {
			a = dst
		}
		cp.FoundBy[i] = a
	}
	sort.Strings(cp.FoundBy)
	if p.Tracked != nil {
		cp.Tracked = make(map[string]time.Time, len(p.Tracked))
		for addr, at := range p.Tracked {
			if dst := to[addr]; dst != "" {
				addr = dst
			}
			cp.Tracked[addr] = at
		}
	}
	if p.History != nil {
		// The history stays the person's; the call that saw each change
		// is named as it is called now, so that a sheet of the moved
		// block's changes keeps them.
		cp.History = make([]Drift, len(p.History))
		for i, d := range p.History {
			if dst := to[d.By]; dst != "" {
				d.By, history = dst, true
			}
			cp.History[i] = d
		}
	}
	return &cp, history
}

// personMoves reports whether a move of to names something of p: the
// searches that found them, the block that enriched them, the tracks that
// read them, the calls that saw a change of them.
func personMoves(p *Person, to map[string]string) bool {
	if p.Enrichment != nil && (to[p.Enrichment.By] != "" || to[p.Enrichment.CopiedBy] != "") {
		return true
	}
	for _, a := range p.FoundBy {
		if to[a] != "" {
			return true
		}
	}
	for addr := range p.Tracked {
		if to[addr] != "" {
			return true
		}
	}
	for _, d := range p.History {
		if to[d.By] != "" {
			return true
		}
	}
	return false
}

// Moved returns a copy of s with the moves of ms folded in, and leaves s
// as it is: the plan of a configuration with moved blocks is made on it,
// so that it plans as the state will be once apply records the moves
// first. The copy shares the records that do not move with s; change
// neither while the other is in use.
func (s *State) Moved(ms []Move) *State {
	c := *s
	c.Searches = maps.Clone(s.Searches)
	c.Profiles = maps.Clone(s.Profiles)
	c.People = maps.Clone(s.People)
	c.Failures = maps.Clone(s.Failures)
	c.Splits = maps.Clone(s.Splits)
	c.Imports = maps.Clone(s.Imports)
	c.ErasedEnrichments = maps.Clone(s.ErasedEnrichments)
	c.UnknownEnrichments = maps.Clone(s.UnknownEnrichments)
	c.idx, c.changes, c.sup, c.supLen = nil, nil, nil, 0
	if s.partial != nil {
		// foldMove counts the people not read under the addresses they
		// will be named by, in the copy's own partial.
		pt := *s.partial
		c.partial = &pt
	}
	c.Normalize()
	c.foldMove(&MoveEvent{Moves: ms})
	return &c
}
