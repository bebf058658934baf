package state

import (
	"slices"
	"strings"
)

// The erasure record: every erasure (leadsync forget) of any workspace of
// a backend, as suppression entries (hashes of the identifiers, nothing
// that names the person). The backend keeps it beside the workspaces
// (backend.ErasureKeeper) and every workspace honours it when its state
// is read or pushed: a workspace made after the erasure, or an old state
// file pushed later, never brings the person back.

// EntryKey is the key an erasure record keeps one entry under: its keys,
// sorted and joined, so that recording the same erasure twice keeps one.
func EntryKey(keys []string) string {
	ks := append([]string(nil), keys...)
	slices.Sort(ks)
	return strings.Join(slices.Compact(ks), " ")
}

// HonourErasures makes s honour the erasure record entries: each entry
// not on s's suppression list yet is applied as the erasure it is (a
// forget event folded into s at the entry's time): the people it names
// are removed and their keys suppressed. It returns how many entries were
// applied (0: s already honoured them all, and nothing was read of its
// people).
func (s *State) HonourErasures(entries []*Suppression) (int, error) {
	todo := s.unhonoured(entries)
	if len(todo) == 0 {
		return 0, nil
	}
	want := map[string]bool{}
	for _, e := range todo {
		for _, k := range e.Keys {
			want[k] = true
		}
	}
	held := map[string][]string{} // key -> the people it names here
	for id, p := range s.People {
		if p == nil {
			continue
		}
		for _, k := range PersonKeys(p) {
			if want[k] {
				held[k] = append(held[k], id)
			}
		}
	}
	set := s.suppressedSet()
	h := &Honoured{Keys: map[string]bool{}}
	for _, e := range todo {
		for _, k := range e.Keys {
			if !set[k] {
				h.Keys[k] = true
			}
		}
	}
	for _, e := range todo {
		ids := []string{}
		for _, k := range e.Keys {
			for _, id := range held[k] {
				if s.People[id] != nil && !slices.Contains(ids, id) {
					ids = append(ids, id)
				}
			}
		}
		slices.Sort(ids)
		for _, id := range ids {
			h.People = append(h.People, s.People[id])
		}
		ev := Event{At: e.At, Kind: EventForgetPeople, Address: PeopleAddress,
			People: &ForgetPeopleEvent{Reason: ForgetErasure, PersonIDs: ids, Keys: append([]string(nil), e.Keys...)}}
		if err := s.Fold(ev); err != nil {
			return 0, err
		}
	}
	s.honoured = h
	return len(todo), nil
}

// Unhonoured reports whether an entry of the erasure record entries is
// not on s's suppression list yet (HonourErasures would apply it).
func (s *State) Unhonoured(entries []*Suppression) bool { return len(s.unhonoured(entries)) > 0 }

func (s *State) unhonoured(entries []*Suppression) []*Suppression {
	set := s.suppressedSet()
	var todo []*Suppression
	for _, e := range entries {
		if e == nil || len(e.Keys) == 0 {
			continue
		}
		for _, k := range e.Keys {
			if !set[k] {
				todo = append(todo, e)
				break
			}
		}
	}
	return todo
}

// Honoured is what HonourErasures applied to a state as it was read: the
// people it removed (as they were) and the keys it put on the suppression
// list. Nil when it applied nothing.
type Honoured struct {
	People []*Person
	Keys   map[string]bool
}

// Honoured returns what the erasure record removed from s when it was
// read (nil: nothing): s holds the change, which its next commit writes.
func (s *State) Honoured() *Honoured { return s.honoured }

// Find returns the person removed whom one of keys (suppression keys:
// IdentifierKeys, PersonKeys) names; nil when none.
func (h *Honoured) Find(keys []string) *Person {
	if h == nil {
		return nil
	}
	for _, p := range h.People {
		for _, k := range PersonKeys(p) {
			if slices.Contains(keys, k) {
				return p
			}
		}
	}
	return nil
}

// AddedAny reports whether one of keys was put on the suppression list.
func (h *Honoured) AddedAny(keys []string) bool {
	if h == nil {
		return false
	}
	for _, k := range keys {
		if h.Keys[k] {
			return true
		}
	}
	return false
}
