package state

import (
	"slices"
	"time"
)

// SeenLister is a PeopleStore that finds the people no search has seen
// since a time (an index of last_seen: schema version 5 of the state
// database, 14 of PostgreSQL).
type SeenLister interface {
	// SeenBefore are the IDs of up to n people whose last_seen is
	// before t, or unset, in no order.
	SeenBefore(t time.Time, n int) ([]string, error)
}

// ExpiredIDs are the IDs of the people State.Expired(retention, now)
// gives, and perhaps a few seen within a microsecond after its limit
// (PostgreSQL keeps microseconds), sorted: a plan reads them whole and
// asks each. ok is false when there are more than n, or the store cannot
// list them: read every person then.
func (b *Base) ExpiredIDs(retention time.Duration, now time.Time, n int) (ids []string, ok bool, err error) {
	if b.store == nil {
		s := State{People: b.mem}
		ids = s.Expired(retention, now)
		return ids, len(ids) <= n, nil
	}
	sl, lists := b.store.(SeenLister)
	if !lists {
		return nil, false, nil
	}
	// Seen before the limit, rounded up to the microsecond: a superset.
	ids, err = sl.SeenBefore(now.Add(-retention).Add(time.Microsecond), n+1)
	if err != nil || len(ids) > n {
		return nil, false, err
	}
	slices.Sort(ids)
	return ids, true, nil
}
