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

// KeptPerson is what a plan keeps of someone retention removes, read in
// the kept form (plan.Expired.ReadKept): the ID, when last seen, and the
// block, copy and time of the enrichment (Enriched false when none).
type KeptPerson struct {
	ID         string
	LastSeen   time.Time
	Enriched   bool
	By         string
	CopiedBy   string
	EnrichedAt time.Time
}

// KeptLister is a PeopleStore that reads only that of people, with no
// person decoded whole: 1,000,000 people decoded whole took most of the
// 10.5 s of CPU of such a plan.
type KeptLister interface {
	// Kept calls fn with each person of ids that exists, in no order.
	Kept(ids []string, fn func(KeptPerson)) error
	// KeptBefore calls fn with each person SeenBefore(t) lists, in no
	// order, in one pass of the index.
	KeptBefore(t time.Time, fn func(KeptPerson)) error
}

// KeptPeople calls fn with the kept form of each person of ids that
// exists (keptOf), asking the store in pages; ok is false, and fn not
// called, when the store cannot (Base.People reads them whole then).
func (b *Base) KeptPeople(ids []string, fn func(KeptPerson)) (ok bool, err error) {
	if b.store == nil {
		for _, id := range ids {
			if p := b.mem[id]; p != nil {
				fn(keptOf(p))
			}
		}
		return true, nil
	}
	kl, lists := b.store.(KeptLister)
	if !lists {
		return false, nil
	}
	page := b.pageSize()
	for start := 0; start < len(ids); start += page {
		if err := kl.Kept(ids[start:min(start+page, len(ids))], fn); err != nil {
			return true, err
		}
	}
	return true, nil
}

// KeptExpired calls fn with the kept form of each person ExpiredIDs
// lists at retention and now, and perhaps a few more (a store keeps
// microseconds), in no order, with no list of IDs asked: one pass of
// the store's index. ok is false, and fn not called, when the store
// cannot.
func (b *Base) KeptExpired(retention time.Duration, now time.Time, fn func(KeptPerson)) (ok bool, err error) {
	limit := now.Add(-retention).Add(time.Microsecond)
	if b.store == nil {
		for _, p := range b.mem {
			if p.LastSeen.Before(limit) {
				fn(keptOf(p))
			}
		}
		return true, nil
	}
	kl, lists := b.store.(KeptLister)
	if !lists {
		return false, nil
	}
	return true, kl.KeptBefore(limit, fn)
}

// keptOf is the kept form of p.
func keptOf(p *Person) KeptPerson {
	k := KeptPerson{ID: p.ID, LastSeen: p.LastSeen}
	if e := p.Enrichment; e != nil {
		k.Enriched, k.By, k.CopiedBy, k.EnrichedAt = true, e.By, e.CopiedBy, e.EnrichedAt
	}
	return k
}
