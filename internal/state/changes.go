package state

// Changes names what changed in a State since tracking started: the keys of
// the searches, profiles, people and failures that Fold or RemovePerson
// set or deleted, and whether Usage changed. A backend that keeps the state
// row by row (PostgreSQL) writes only these rows instead of the whole state.
// A key is listed whether it was set or deleted: the state's maps say which
// (a key missing from the map was deleted).
type Changes struct {
	Searches map[string]struct{}
	Profiles map[string]struct{}
	People   map[string]struct{}
	Failures map[string]struct{}
	// History counts, by person ID, the entries at the end of the
	// person's History that were added since tracking started; -1 when the
	// whole history is to be written again (a person re-keyed or merged).
	// Its people are in People too.
	History map[string]int
	// Removed are the people a retention removal took out whom the
	// state read in the removal form alone (removal.go), in no order:
	// the store deletes their rows. They are not keys of People and
	// History, two map entries a person (102 MB at 1,000,000); one made
	// again since is in People too, its history written whole.
	Removed []string
	// Cut are the searches whose lead lists held people of Removed, read
	// by a partial state or not: the store cuts them (keeps in each the
	// IDs of people it still holds) once it deleted Removed, before it
	// writes the people and searches named here. One of Searches is
	// written whole after, its list cut in memory (State.cutRead).
	Cut   map[string]struct{}
	Usage bool
	// Meta is true when a state-level field other than these maps and
	// Usage changed (the split runs under way).
	Meta bool
	// Renames are the moves of the move events a partial state folded,
	// one list per event, in order: the store makes them in the rows of
	// the people it did not read, before it writes People (renames.go).
	Renames [][]Move
}

func newChanges() *Changes {
	return &Changes{
		Searches: map[string]struct{}{},
		Profiles: map[string]struct{}{},
		People:   map[string]struct{}{},
		Failures: map[string]struct{}{},
		History:  map[string]int{},
		Cut:      map[string]struct{}{},
	}
}

// Empty reports whether nothing changed.
func (c *Changes) Empty() bool {
	return c == nil || len(c.Searches)+len(c.Profiles)+len(c.People)+len(c.Failures)+len(c.Renames)+len(c.Removed)+len(c.Cut) == 0 && !c.Usage && !c.Meta
}

// Track starts recording changes (see TakeChanges). Tracking costs a map
// insert per change and is off unless a backend asks for it.
func (s *State) Track() {
	if s.changes == nil {
		s.changes = newChanges()
	}
}

// Tracking reports whether Track was called.
func (s *State) Tracking() bool { return s.changes != nil }

// TakeChanges returns the changes recorded since Track or the last
// TakeChanges and starts a new record. Nil when not tracking.
func (s *State) TakeChanges() *Changes {
	c := s.changes
	if c != nil {
		s.remadeAfterRemoval(c)
		s.changes = newChanges()
	}
	return c
}

// remadeAfterRemoval names in c's People, their history written whole, the
// people of c.Removed whom s holds again (a search found them after the
// removal): the store deletes their rows, then writes them anew.
func (s *State) remadeAfterRemoval(c *Changes) {
	for _, id := range c.Removed {
		if s.People[id] != nil {
			c.People[id] = struct{}{}
			c.History[id] = -1
		}
	}
}

// PutBackChanges merges c into the changes recorded now: a backend that
// took the changes but could not write them gives them back, so that the
// next write includes them.
func (s *State) PutBackChanges(c *Changes) {
	if c == nil || s.changes == nil {
		return
	}
	for k := range c.Searches {
		s.changes.Searches[k] = struct{}{}
	}
	for k := range c.Profiles {
		s.changes.Profiles[k] = struct{}{}
	}
	for k := range c.People {
		s.changes.People[k] = struct{}{}
	}
	for k := range c.Failures {
		s.changes.Failures[k] = struct{}{}
	}
	for k := range c.Cut {
		s.changes.Cut[k] = struct{}{}
	}
	for k, n := range c.History {
		s.touchHistory(k, n)
	}
	s.changes.Removed = append(s.changes.Removed, c.Removed...)
	// Renames put back go first: the store makes them in order.
	s.changes.Renames = append(c.Renames, s.changes.Renames...)
	s.changes.Usage = s.changes.Usage || c.Usage
	s.changes.Meta = s.changes.Meta || c.Meta
}

func (s *State) touchPerson(id string) {
	if s.changes != nil && id != "" {
		s.changes.People[id] = struct{}{}
	}
}

// touchHistory notes n more entries at the end of the history of person
// id (-1: all of it).
func (s *State) touchHistory(id string, n int) {
	if s.changes == nil || id == "" {
		return
	}
	s.changes.People[id] = struct{}{}
	switch cur, ok := s.changes.History[id]; {
	case n < 0 || (ok && cur < 0):
		s.changes.History[id] = -1
	default:
		s.changes.History[id] = cur + n
	}
}

func (s *State) touchSearch(addr string) {
	if s.changes != nil {
		s.changes.Searches[addr] = struct{}{}
	}
}

func (s *State) touchProfile(addr string) {
	if s.changes != nil {
		s.changes.Profiles[addr] = struct{}{}
	}
}

func (s *State) touchFailure(addr string) {
	if s.changes != nil {
		s.changes.Failures[addr] = struct{}{}
	}
}

// SetService records the service the state is filled from (see
// State.Service), as a change of the state's header.
func (s *State) SetService(service string) {
	if s.Service != service {
		s.Service = service
		s.touchMeta()
	}
}

// SetConfiguration records the configuration that fills the state (see
// State.Configuration), as a change of the state's header.
func (s *State) SetConfiguration(name string) {
	if s.Configuration != name {
		s.Configuration = name
		s.touchMeta()
	}
}

func (s *State) touchMeta() {
	if s.changes != nil {
		s.changes.Meta = true
	}
}

func (s *State) touchUsage() {
	if s.changes != nil {
		s.changes.Usage = true
	}
}
