package state

import "sort"

// A move folded into a partial state moves the people it read, in
// People, and leaves the others to its store: renameStored counts them
// under their new addresses and records the moves (Changes.Renames). The
// store makes them in those people's rows, in the transaction that
// records the event, before it writes People (sqlstate.RenameStmts), so
// that the fold reads no person, however many the move names. A person
// read before the renames are written (a write that failed gives them
// back) is moved as read (pendingMoved).

// renameStored records the moves of to (from -> to) for the store, in a
// partial state: the people it did not read are counted under their new
// addresses, and their rows renamed when the changes are written.
func (s *State) renameStored(to map[string]string) {
	pt := s.partial
	if pt == nil || len(to) == 0 {
		return
	}
	pt.others = pt.others.movedNames(to)
	if s.changes == nil {
		return
	}
	ms := make([]Move, 0, len(to))
	for from, dst := range to {
		ms = append(ms, Move{From: from, To: dst})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].From < ms[j].From })
	s.changes.Renames = append(s.changes.Renames, ms)
}

// pendingMoved is p as read from the store, moved by the renames the
// store has not written yet, in order.
func (s *State) pendingMoved(p *Person) *Person {
	if s.changes == nil {
		return p
	}
	for _, ms := range s.changes.Renames {
		to := make(map[string]string, len(ms))
		for _, m := range ms {
			to[m.From] = m.To
		}
		if personMoves(p, to) {
			p, _ = movedPerson(p, to)
		}
	}
	return p
}
