package state

// LetGoUnread takes out of s, a partial state, the people of ids that it
// holds without having read them from its store: the sketches a plan was
// given (plan.EnrichFacts.Fill). A later ReadPeople reads them whole. The
// people s read, and any of a state read whole, are left.
func (s *State) LetGoUnread(ids []string) {
	pt := s.partial
	if pt == nil {
		return
	}
	for _, id := range ids {
		if s.People[id] != nil && !pt.isAsked(id) {
			delete(s.People, id)
		}
	}
	s.idx = nil // built again on first use
}
