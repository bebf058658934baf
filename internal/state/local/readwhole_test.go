package local

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

// TestPeopleReadByIDShareTheirLists: the people a plan reads whole by
// ID, page after page, share the list of the addresses that found them
// when it is the same: one list a search, not one a page of people.
func TestPeopleReadByIDShareTheirLists(t *testing.T) {
	s := statetest.BigState(t, 1, 4)
	store := NewStore(filepath.Join(t.TempDir(), ".leadsync", "state.db"))
	defer store.Close()
	must(t, store.Save(s))
	base, err := store.OpenBase()
	must(t, err)
	defer base.Close()
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range s.People {
			if !yield(id) {
				return
			}
		}
	})
	first, err := base.People(ids[:1])
	must(t, err)
	second, err := base.People(ids[1:2])
	must(t, err)
	a, b := first[ids[0]].FoundBy, second[ids[1]].FoundBy
	if len(a) != 1 || !slices.Equal(a, b) {
		t.Fatalf("found by %q and %q, want one search each, the same", a, b)
	}
	if &a[0] != &b[0] {
		t.Errorf("two reads of people found by %q gave two lists, not one shared", a)
	}
}

// TestPeopleReadByIDKeepTheirTimes: the times a read decodes once when
// the next person repeats them are each person's own, whatever the
// order of the people read.
func TestPeopleReadByIDKeepTheirTimes(t *testing.T) {
	s := statetest.BigState(t, 2, 5)
	at := time.Date(2026, 3, 4, 5, 6, 7, 890, time.UTC)
	var ids []string
	k := 0
	for id, p := range s.People {
		// Runs of the same time, then another, then the first again.
		p.FirstSeen = at.Add(time.Duration(k/3%2) * time.Hour)
		p.LastSeen = at.Add(time.Duration(k%2) * time.Minute)
		ids = append(ids, id)
		k++
	}
	store := NewStore(filepath.Join(t.TempDir(), ".leadsync", "state.db"))
	defer store.Close()
	must(t, store.Save(s))
	base, err := store.OpenBase()
	must(t, err)
	defer base.Close()
	for _, page := range [][]string{ids, ids[:3], ids[3:]} {
		got, err := base.People(page)
		must(t, err)
		for _, id := range page {
			want, p := s.People[id], got[id]
			if p == nil || !p.FirstSeen.Equal(want.FirstSeen) || !p.LastSeen.Equal(want.LastSeen) {
				t.Fatalf("person %s read as %+v, want first seen %s, last seen %s", id, p, want.FirstSeen, want.LastSeen)
			}
		}
	}
}

// TestPeopleReadByIDKeepTheirHistories: people read by ID get their
// histories whether the IDs asked span a change or none (a read that
// finds no change between its first and last ID asks no more).
func TestPeopleReadByIDKeepTheirHistories(t *testing.T) {
	s := statetest.BigState(t, 2, 5)
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range s.People {
			if !yield(id) {
				return
			}
		}
	})
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	for _, id := range []string{ids[0], ids[4], ids[9]} {
		s.People[id].History = []state.Drift{{Field: "title", Before: "CTO", After: "CEO " + id, At: at, By: "track.x", Call: "track"},
			{Field: "company", Before: "A", After: "B", At: at.Add(time.Hour), By: "track.x", Call: "track"}}
	}
	store := NewStore(filepath.Join(t.TempDir(), ".leadsync", "state.db"))
	defer store.Close()
	must(t, store.Save(s))
	base, err := store.OpenBase()
	must(t, err)
	defer base.Close()
	for _, page := range [][]string{ids, ids[1:4], ids[3:6], ids[5:9], {ids[9], ids[1]}, ids[:1]} {
		got, err := base.People(page)
		must(t, err)
		for _, id := range page {
			if p, want := got[id], s.People[id].History; p == nil || !slices.Equal(p.History, want) {
				t.Fatalf("person %s of the read of %q has the history %+v, want %+v", id, page, p, want)
			}
		}
	}
}
