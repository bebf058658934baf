package state

// PeopleCounter is a store that counts its people with one question (the
// SQL stores: a count of the people's primary key), so that a plan read
// in part can weigh what it would read by ID against a read of everyone
// (plan.EnrichFacts). The SQL stores give it.
type PeopleCounter interface {
	CountPeople() (int, error)
}

// CountPeople counts the people: those read whole, or the store's count
// (PeopleCounter; else PeopleFacts' Total).
func (b *Base) CountPeople() (int, error) {
	if b.store == nil {
		return len(b.mem), nil
	}
	if c, ok := b.store.(PeopleCounter); ok {
		return c.CountPeople()
	}
	f, err := b.store.Facts(nil)
	return f.Total, err
}
