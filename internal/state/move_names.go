package state

// What a plan with moved blocks asks of a store that keeps its people,
// instead of reading every person: the addresses the people's records
// name (Names), to resolve the moves, and whether a move renames any of
// them (MovesNames).

// Addressed is a copy of the Base's records, without people, that
// answers what a move asks of the people (MovableAddresses, Holds,
// MoveConflicts, RecordsAt) from the store's counts (Names): the records
// of a state read in part, as Writable gives, without its reads. Use it
// to resolve moves alone: it reads no person.
func (b *Base) Addressed() (*State, error) {
	names, err := b.Names()
	if err != nil {
		return nil, err
	}
	s := *b.Records
	s.People, s.idx, s.changes = map[string]*Person{}, nil, nil
	s.partial = &partial{store: b.store, asked: map[string]bool{}, others: names,
		records: map[string]bool{}, pages: map[string]bool{}, pageOnly: map[string]bool{}}
	return &s, nil
}

// MovesNames reports whether a move of ms renames an address that a
// person's record other than found_by names (the store's Names: an
// enrichment's block or copier, a track, the call that saw a change), or
// one an enrichment of unknown outcome or an erased one names. s is the
// state Addressed gives: a state read whole counts its people.
func (s *State) MovesNames(ms []Move) bool {
	named := map[string]bool{}
	if s.partial != nil {
		s.partial.others.named(named, false)
	}
	for _, p := range s.People {
		if p.Enrichment != nil {
			named[p.Enrichment.By] = true
			named[p.Enrichment.CopiedBy] = true
		}
		for addr := range p.Tracked {
			named[addr] = true
		}
		for _, d := range p.History {
			named[d.By] = true
		}
	}
	for _, u := range s.UnknownEnrichments {
		named[u.By] = true
	}
	for addr, n := range s.ErasedEnrichments {
		named[addr] = named[addr] || n > 0
	}
	for _, m := range ms {
		if named[m.From] {
			return true
		}
	}
	return false
}

// movedNames is the copy of n with the addresses of to (from -> to)
// renamed: the counts of the people not read once the moves are made.
func (n Names) movedNames(to map[string]string) Names {
	out := Names{}
	for i, g := range []map[string]int{n.Enriched, n.Copied, n.Tracked, n.History} {
		m := make(map[string]int, len(g))
		for addr, c := range g {
			if dst := to[addr]; dst != "" {
				addr = dst
			}
			m[addr] += c
		}
		switch i {
		case 0:
			out.Enriched = m
		case 1:
			out.Copied = m
		case 2:
			out.Tracked = m
		default:
			out.History = m
		}
	}
	return out
}

// MovePeople puts in ps, in place of each person a move of to (from ->
// to) names, a moved copy of them, as Moved moves the people of a state,
// and returns ps: the people a plan reads while it is built, over a state
// Moved gave.
func MovePeople(ps map[string]*Person, to map[string]string) map[string]*Person {
	for id, p := range ps {
		if p != nil && personMoves(p, to) {
			ps[id], _ = movedPerson(p, to)
		}
	}
	return ps
}
