package state

// EventMark places an event among the events one operation recorded (an
// apply, a forget): Run names the operation's recording, Seq is the
// event's place in it (1, 2, ...). The layer that records for the
// operations (internal/run) gives every event one before its first write.
// A write that fails may still have reached the backend (a database that
// committed and then lost the connection before it said so), and the
// event is then kept in a rescue file too: with the mark, the second copy
// is recognised and folded no more (State.Marks).
type EventMark struct {
	Run string `json:"run"`
	Seq uint64 `json:"seq"`
}

// folded reports whether s holds the marked event e already.
func (s *State) folded(e *Event) bool {
	return e.Mark != nil && e.Mark.Run != "" && s.Marks[e.Mark.Run] >= e.Mark.Seq
}

// noteMark records that e, folded now, is in s. The mark is written with
// the state's other fields (the state file; the pg backend's extra
// column), so it is a change of the state's own fields (touchMeta): a
// backend that writes each call's changes as they come (pg) and drops the
// events it folded must write the mark with them, or a run killed after
// further calls would lose it.
func (s *State) noteMark(e *Event) {
	if e.Mark == nil || e.Mark.Run == "" {
		return
	}
	if s.Marks == nil {
		s.Marks = map[string]uint64{}
	}
	if e.Mark.Seq > s.Marks[e.Mark.Run] {
		s.Marks[e.Mark.Run] = e.Mark.Seq
		s.touchMeta()
	}
}

// DropMarks forgets the marks of every run keep does not name: once no
// copy of a run's events can turn up again (its rescue files are gone and
// its events folded), its mark is only weight. The caller commits.
func (s *State) DropMarks(keep func(run string) bool) {
	for run := range s.Marks {
		if !keep(run) {
			delete(s.Marks, run)
			s.touchMeta()
		}
	}
	if len(s.Marks) == 0 {
		s.Marks = nil
	}
}
