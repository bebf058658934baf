package export

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// streamStore is a readsStore that streams pages too (state.PageStreamer):
// each page a stream reads is recorded as "stream:" and its IDs; a stream
// fails after failAfter pages (-1: never).
type streamStore struct {
	readsStore
	failAfter int
	streams   int
}

func (s *streamStore) StreamsPages() bool { return true }

func (s *streamStore) StreamPages(next func() ([]string, bool), fn func([]*state.Person) bool) error {
	s.mu.Lock()
	s.streams++
	s.mu.Unlock()
	for n := 0; ; n++ {
		ids, ok := next()
		if !ok {
			return nil
		}
		if n == s.failAfter {
			return errors.New("the stream's connection went away")
		}
		s.mu.Lock()
		s.reads = append(s.reads, append([]string{"stream:"}, ids...))
		s.mu.Unlock()
		var out []*state.Person
		for _, id := range ids {
			if p := s.st.People[id]; p != nil {
				out = append(out, p)
			}
		}
		if !fn(out) {
			return nil
		}
	}
}

// streamedRowPeople is rowPeopleOf over a streamStore.
func streamedRowPeople(ids []string, failAfter int) (*rowPeople, *streamStore) {
	st := state.New()
	for i := range 9 {
		id := fmt.Sprintf("p%d", i)
		st.People[id] = &state.Person{ID: id, Lead: person.Lead{FullName: "Person " + id}}
	}
	store := &streamStore{readsStore: readsStore{failingStore: failingStore{st: st, failAt: 100}}, failAfter: failAfter}
	rec := *st
	rec.People = nil
	b := state.NewStoredBase(&rec, nil, store)
	b.SetPage(2)
	return newRowPeople(b, len(ids), func(i int) string { return ids[i] }), store
}

// askAll asks r for each row of ids in order and checks its person.
func askAll(t *testing.T, r *rowPeople, ids []string, rows []int) {
	t.Helper()
	for _, i := range rows {
		p := r.person(i)
		switch {
		case strings.HasPrefix(ids[i], "x") && p != nil:
			t.Errorf("row %d: %s, want nobody", i, p.ID)
		case !strings.HasPrefix(ids[i], "x") && (p == nil || p.ID != ids[i]):
			t.Errorf("row %d: %v, want %s", i, p, ids[i])
		}
	}
	r.stop()
	if r.error() != nil {
		t.Errorf("error %v, want none", r.error())
	}
}

// TestRowPeopleStreamsThePagesInOrder: from a store that streams pages,
// rows asked for in order are read a page a question for the first two
// pages (the first the page fitWidths' first samples read), then in one
// stream to the last row; every row has its person.
func TestRowPeopleStreamsThePagesInOrder(t *testing.T) {
	ids := []string{"p0", "p1", "p2", "p3", "x4", "p5", "p6", "p7", "p8"}
	r, store := streamedRowPeople(ids, -1)
	askAll(t, r, ids, []int{0, 1, 2, 3, 4, 5, 6, 7, 8})
	want := []string{"p0,p1", "p2,p3", "stream:,x4,p5", "stream:,p6,p7", "stream:,p8"}
	if d := cmp.Diff(want, store.read()); d != "" {
		t.Errorf("reads (-want +got):\n%s", d)
	}
	if store.streams != 1 {
		t.Errorf("%d streams, want 1", store.streams)
	}
}

// TestRowPeopleStreamStopsAtAJump: a row asked for out of order stops the
// stream, which has read two pages past the one held at most, and is read
// alone; rows in order after it are read a page a question, then
// streamed again.
func TestRowPeopleStreamStopsAtAJump(t *testing.T) {
	ids := []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p0", "p1", "p2", "p3"}
	r, store := streamedRowPeople(ids, -1)
	askAll(t, r, ids, []int{0, 1, 2, 3, 4, 12, 5, 6, 7, 8, 9, 10, 11, 12})
	reads := store.read()
	if store.streams != 2 {
		t.Errorf("%d streams, want 2 (reads %q)", store.streams, reads)
	}
	jump := slices.Index(reads, "p3")
	if jump < 0 || slices.Contains(reads[:jump], "stream:,p0,p1") {
		t.Errorf("reads %q: want row 12 read alone, the first stream stopped before rows 9 and 10", reads)
	}
}

// TestRowPeopleStreamFailsThenReadsPages: when the stream fails, the
// rows it did not give are read a page a question, and every row still
// has its person (the store's error did not stay).
func TestRowPeopleStreamFailsThenReadsPages(t *testing.T) {
	ids := []string{"p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"}
	r, store := streamedRowPeople(ids, 1)
	askAll(t, r, ids, []int{0, 1, 2, 3, 4, 5, 6, 7, 8})
	want := []string{"p0,p1", "p2,p3", "stream:,p4,p5", "p6,p7", "p8"}
	if d := cmp.Diff(want, store.read()); d != "" {
		t.Errorf("reads (-want +got):\n%s", d)
	}
	if store.streams != 1 {
		t.Errorf("%d streams, want 1: none after one failed", store.streams)
	}
}

// TestRowPeoplePrefetchReadsTheSamplesTogether: the rows prefetch names
// (fitWidths' samples) are read together (Base.People: a page of three
// at a time here), and asking for them reads nothing more; the first row asked for that is not among them is read
// as before (x5 is nobody, in the samples and after).
func TestRowPeoplePrefetchReadsTheSamplesTogether(t *testing.T) {
	ids := []string{"p0", "p1", "p2", "p3", "p4", "x5", "p6", "p7", "p8"}
	r, store := rowPeopleOf(ids, 100)
	r.prefetch([]int{2, 5, 7, 8})
	askAll(t, r, ids, []int{2, 5, 7, 8})
	if d := cmp.Diff([]string{"p2,x5,p7", "p8"}, store.read()); d != "" {
		t.Errorf("reads of the samples (-want +got):\n%s", d)
	}
	askAll(t, r, ids, []int{0, 1, 2, 3})
	if d := cmp.Diff([]string{"p2,x5,p7", "p8", "p0", "p1,p2,p3", "p4,x5,p6"}, store.read()); d != "" {
		t.Errorf("reads after the samples (-want +got):\n%s", d)
	}
}

// TestFitWidthsPrefetchesItsJumps: fitWidths hands the rows it samples
// out of order to the table's prefetch before it asks for them, in one
// call.
func TestFitWidthsPrefetchesItsJumps(t *testing.T) {
	var asked [][]int
	var filled []int
	tb := &table{header: []string{"Name"}, kinds: []cellKind{kindText}, n: 3 * widthSamples,
		fill: func(i int, row []cellValue) {
			filled = append(filled, i)
			row[0] = cellValue{Text: "x"}
		},
		prefetch: func(rows []int) { asked = append(asked, slices.Clone(rows)) }}
	fitWidths(tb, 0, tb.n)
	if len(asked) != 1 {
		t.Fatalf("prefetch called %d times, want once", len(asked))
	}
	if d := cmp.Diff(filled[widthSamples/2:], asked[0]); d != "" {
		t.Errorf("rows prefetched (-sampled out of order +prefetched):\n%s", d)
	}
}
