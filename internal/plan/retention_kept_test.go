package plan

import (
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// Kept and KeptBefore give the kept form of people as a database does
// (state.KeptLister, sqlstate's SelectKept and SelectKeptBefore): the
// random worlds' plans read the people retention removes through
// Expired.keepAll, and must be the whole state's. In a world of a
// multiple of three people, KeptBefore leaves one out, as a store whose
// pass did not meet everyone listed: keepPage must then read by ID those
// keepAll did not keep.
func (m memStore) Kept(ids []string, fn func(state.KeptPerson)) error {
	_, err := state.NewBase(m.st).KeptPeople(ids, fn)
	return err
}

func (m memStore) KeptBefore(t time.Time, fn func(state.KeptPerson)) error {
	short := len(m.st.People)%3 == 0
	retention := time.Microsecond // KeptExpired's limit is now less retention, plus a microsecond
	_, err := state.NewBase(m.st).KeptExpired(retention, t, func(k state.KeptPerson) {
		if short {
			short = false
			return
		}
		fn(k)
	})
	return err
}

var _ state.KeptLister = memStore{}
