package export

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// readsStore is a failingStore that records the IDs of each read of
// people, in order (the reads ahead come from a goroutine of their own).
type readsStore struct {
	failingStore
	mu    sync.Mutex
	reads [][]string
}

func (s *readsStore) Get(ids []string) ([]*state.Person, error) {
	s.mu.Lock()
	s.reads = append(s.reads, slices.Clone(ids))
	s.mu.Unlock()
	return s.failingStore.Get(ids)
}

// read is the IDs of every read so far, each read's joined by commas.
func (s *readsStore) read() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, ids := range s.reads {
		out = append(out, strings.Join(ids, ","))
	}
	return out
}

// rowPeopleOf is a rowPeople over rows naming the IDs ids, read three
// at a time from a store of the people p0 ... p8 whose reads fail from
// the failAt-th on.
func rowPeopleOf(ids []string, failAt int) (*rowPeople, *readsStore) {
	st := state.New()
	for i := range 9 {
		id := fmt.Sprintf("p%d", i)
		st.People[id] = &state.Person{ID: id, Lead: person.Lead{FullName: "Person " + id}}
	}
	store := &readsStore{failingStore: failingStore{st: st, failAt: failAt}}
	rec := *st
	rec.People = nil
	b := state.NewStoredBase(&rec, nil, store)
	b.SetPage(3)
	return newRowPeople(b, len(ids), func(i int) string { return ids[i] }), store
}

// settle waits for the read ahead under way, if any, without taking it.
func (r *rowPeople) settle() {
	if r.ahead != nil {
		<-r.ahead.done
	}
}

// TestRowPeopleReadsOnePageAhead: rows asked for in order are read a
// page at a time, and the page after the one being written is read while
// its rows are written: once row i was asked for, the store has read
// the page of i and the next one, never more. A row asked for out of
// order (fitWidths' samples) is read alone, after the read ahead is
// waited for; its person is the right one either way (x5 is not in the
// store: its row has nobody).
func TestRowPeopleReadsOnePageAhead(t *testing.T) {
	ids := []string{"p0", "p1", "p2", "p3", "p4", "x5", "p6", "p7", "p8", "p0", "p1"}
	r, store := rowPeopleOf(ids, 100)
	pages := []string{"p0,p1,p2", "p3,p4,x5", "p6,p7,p8", "p0,p1"}
	for i, id := range ids {
		p := r.person(i)
		r.settle()
		switch {
		case id == "x5" && p != nil:
			t.Errorf("row %d: %s, want nobody", i, p.ID)
		case id != "x5" && (p == nil || p.ID != id):
			t.Errorf("row %d: %v, want %s", i, p, id)
		}
		want := pages[:min(i/3+2, len(pages))]
		if d := cmp.Diff(want, store.read()); d != "" {
			t.Fatalf("reads once row %d was asked for (-want +got):\n%s", i, d)
		}
	}

	r, store = rowPeopleOf(ids, 100)
	for _, i := range []int{0, 7, 8, 9, 10} {
		if p := r.person(i); p == nil || p.ID != ids[i] {
			t.Errorf("row %d: %v, want %s", i, p, ids[i])
		}
	}
	r.stop()
	want := []string{"p0,p1,p2", "p3,p4,x5", "p7", "p8,p0,p1"}
	if d := cmp.Diff(want, store.read()); d != "" {
		t.Errorf("reads with a jump (-want +got):\n%s", d)
	}
	if r.error() != nil {
		t.Errorf("error %v, want none", r.error())
	}
}

// TestRowPeopleReadAheadFails: when the read of the next page fails
// while the rows of a page are written, the rows of that page still have
// their people, the rows after have nobody, error says why, and nothing
// more is read.
func TestRowPeopleReadAheadFails(t *testing.T) {
	ids := []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6"}
	r, store := rowPeopleOf(ids, 2)
	for i, id := range ids {
		p := r.person(i)
		if i < 3 && (p == nil || p.ID != id) {
			t.Errorf("row %d: %v, want %s", i, p, id)
		}
		if i >= 3 && p != nil {
			t.Errorf("row %d: %s, want nobody after the failed read", i, p.ID)
		}
	}
	r.stop()
	if err := r.error(); err == nil || !strings.Contains(err.Error(), "the database went away") {
		t.Errorf("error %v, want the store's", err)
	}
	if got := len(store.read()); got != 2 {
		t.Errorf("%d reads, want 2 (the first page, the one ahead that failed)", got)
	}
}
