package state_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// listStore is a store that holds lead lists only: lists by address,
// read at once (LeadLists, unless one) or one at a time (LeadIDs), each
// call counted. skip is an address LeadLists leaves out; its LeadIDs fail.
type listStore struct {
	state.PeopleStore
	lists map[string][]string
	skip  string
	asked [][]string
	one   int
}

var errNoRow = errors.New("no row")

func (s *listStore) LeadIDs(addr string) ([]string, error) {
	s.one++
	if addr == s.skip {
		return nil, errNoRow
	}
	return s.lists[addr], nil
}

func (s *listStore) Names() (state.Names, error) { return state.Names{}, nil }

type batchStore struct{ *listStore }

func (s batchStore) LeadLists(addrs []string) (map[string][]string, error) {
	s.asked = append(s.asked, addrs)
	out := map[string][]string{}
	for _, a := range addrs {
		if a != s.skip {
			out[a] = s.lists[a]
		}
	}
	return out, nil
}

// A plan's reading of many searches (and a partial state's ReadLeadsOf)
// asks a store that reads lead lists at
// once one question for all of them, only for the searches the records
// were read without, each once; another store is asked search by search;
// a list the store leaves out is asked alone, and its error returned.
func TestReadingReadsLeadListsAtOnce(t *testing.T) {
	records := state.New()
	lists := map[string][]string{"search.a": {"1", "2"}, "search.b": {}, "search.c": {"3"}}
	for addr := range lists {
		records.Searches[addr] = &state.Search{Address: addr}
	}
	records.Searches["search.held"] = &state.Search{Address: "search.held", LeadIDs: []string{"9"}}
	kept := map[string]int{"search.a": 2, "search.b": 0, "search.c": 1}
	asked := []string{"search.a", "search.b", "search.c", "search.held", "search.nothing", "search.a"}
	check := func(t *testing.T, st state.PeopleStore) {
		t.Helper()
		s, err := state.NewStoredBase(records, kept, st).Reading(asked, nil)
		if err != nil {
			t.Fatal(err)
		}
		for addr, want := range lists {
			if d := cmp.Diff(want, s.Searches[addr].LeadIDs); d != "" {
				t.Errorf("%s (-want +got):\n%s", addr, d)
			}
		}
		if d := cmp.Diff([]string{"9"}, s.Searches["search.held"].LeadIDs); d != "" || records.Searches["search.a"].LeadIDs != nil {
			t.Errorf("the records changed, or search.held was read again:\n%s", d)
		}
	}
	batch := batchStore{&listStore{lists: lists}}
	check(t, batch)
	if d := cmp.Diff([][]string{{"search.a", "search.b", "search.c"}}, batch.asked); d != "" || batch.one != 0 {
		t.Errorf("LeadLists asked (-want +got):\n%s\nand LeadIDs %d times", d, batch.one)
	}
	single := &listStore{lists: lists}
	check(t, single)
	if single.one != 3 {
		t.Errorf("a store without LeadLists was asked %d times, want 3", single.one)
	}
	partial := batchStore{&listStore{lists: lists}}
	st, err := state.NewStoredBase(records, kept, partial).Writable()
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := st.ReadLeadsOf(asked); err != nil {
			t.Fatal(err)
		}
	}
	for addr, want := range lists {
		if d := cmp.Diff(want, st.Searches[addr].LeadIDs); d != "" {
			t.Errorf("ReadLeadsOf: %s (-want +got):\n%s", addr, d)
		}
	}
	if d := cmp.Diff([][]string{{"search.a", "search.b", "search.c"}}, partial.asked); d != "" || partial.one != 0 {
		t.Errorf("ReadLeadsOf asked LeadLists (-want +got):\n%s\nand LeadIDs %d times", d, partial.one)
	}
	skipping := batchStore{&listStore{lists: lists, skip: "search.c"}}
	if _, err := state.NewStoredBase(records, kept, skipping).Reading(asked, nil); !errors.Is(err, errNoRow) || skipping.one != 1 {
		t.Errorf("a list left out: %v after %d LeadIDs, want %v after 1", err, skipping.one, errNoRow)
	}
}
