package plan

import "github.com/leadsync/leadsync/internal/state"

// Kept gives the kept form of people as a database does (state.KeptLister,
// sqlstate's SelectKept): the random worlds' plans read the people
// retention removes through Expired.keepPage's store path, and must be
// the whole state's.
func (m memStore) Kept(ids []string, fn func(state.KeptPerson)) error {
	_, err := state.NewBase(m.st).KeptPeople(ids, fn)
	return err
}

var _ state.KeptLister = memStore{}
