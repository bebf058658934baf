package backendtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// testPartialRemovalCutsLists: a retention removal of people a partial
// state read in the removal form alone has the store cut the searches'
// lead lists itself (sqlstate.CutLeadLists), not write them whole. Its
// lists, one read before the removal, one read after it and one never
// read (named by one removal form alone), lose exactly the people
// removed and keep the others in order; a list of removed people alone
// is left empty, not none. A person removed and found again by a new
// search in the same write (both events folded before the one write of
// the journal's Close) is listed there alone. The state is the one the
// same events folded whole leave, and the list read after the removal
// comes cut.
func testPartialRemovalCutsLists(t *testing.T, k Kind) {
	open, wholeOpen := k.New(t), k.New(t)
	setup := manyPeopleEvents(30, 0)
	// search.m["a"]: m000-m019, ["b"]: m010-m029, ["d"]: m100 and m101
	// alone, m100 removed (the only list a removal form names alone).
	setup[len(setup)-1] = state.Event{At: At(4), Kind: state.EventSearch, Address: `search.m["d"]`, Search: &state.SearchEvent{Generation: api.Gen1,
		Request: json.RawMessage(`{"keywords":"CFO"}`), Leads: []person.Lead{lead("m100", "page100", "Person 100"), lead("m101", "page101", "Person 101")}}}
	// search.m["e"]: m003 and m005, both removed: its list is emptied.
	emptied := `search.m["e"]`
	setup = append(setup, state.Event{At: At(4), Kind: state.EventSearch, Address: emptied, Search: &state.SearchEvent{Generation: api.Gen1,
		Request: json.RawMessage(`{"keywords":"COO"}`), Leads: []person.Lead{lead("m003", "page003", "Person 3"), lead("m005", "page005", "Person 5")}}})
	Apply(t, open("", Alice), setup)
	Apply(t, wholeOpen("", Alice), setup)
	var gone []string
	for i := range 24 {
		if i%3 != 1 {
			gone = append(gone, fmt.Sprintf("m%03d", i))
		}
	}
	gone = append(gone, "m100")
	readBefore, readAfter, again := `search.m["a"]`, `search.m["b"]`, `search.m["c"]`
	events := []state.Event{
		{At: At(5), Kind: state.EventForgetPeople, Address: state.PeopleAddress,
			People: &state.ForgetPeopleEvent{Reason: state.ForgetRetention, PersonIDs: gone}},
		{At: At(6), Kind: state.EventSearch, Address: again, Search: &state.SearchEvent{Generation: api.Gen1,
			Request: json.RawMessage(`{"keywords":"CEO"}`), Leads: []person.Lead{lead("m002", "page002", "Person 2"), lead("m001", "page001", "Person 1")}}},
	}
	want := foldTogether(t, wholeOpen, nil, events)
	foldTogether(t, open, func(s *state.State, afterRemoval bool) {
		addr := readBefore
		if afterRemoval {
			addr = readAfter
		}
		must(t, s.ReadLeadsOf([]string{addr}), "read a lead list")
		if afterRemoval && !slices.Equal(s.Searches[addr].LeadIDs, want.Searches[addr].LeadIDs) {
			t.Errorf("%s read after the removal lists %v, want %v", addr, s.Searches[addr].LeadIDs, want.Searches[addr].LeadIDs)
		}
	}, events)
	stored, err := loadOnce(open("", Alice))
	must(t, err, "load")
	same(t, want, stored, "the state after a removal whose lists the store cut (-folded whole +partial)")
	for addr, sr := range stored.Searches {
		for _, id := range sr.LeadIDs {
			if slices.Contains(gone, id) && (addr != again || id != "m002") {
				t.Errorf("%s still lists %s, removed", addr, id)
			}
		}
	}
	for addr, n := range map[string]int{readBefore: 20, readAfter: 20, `search.m["d"]`: 2} {
		if left := len(want.Searches[addr].LeadIDs); left == 0 || left == n {
			t.Fatalf("%s lists %d of its %d people after the removal: the test cuts nothing or all", addr, left, n)
		}
	}
	if ids := want.Searches[emptied].LeadIDs; ids == nil || len(ids) != 0 {
		t.Fatalf("%s lists %v after the removal folded whole, want an empty list (not none)", emptied, ids)
	}
}

// foldTogether folds events as an apply records them (journal, folds,
// commit) into the stored state of open in one write, read whole (read
// nil) or in part; read, when set, is called before the first event and
// after it (a partial state's reads of lead lists). It returns the state
// committed.
func foldTogether(t *testing.T, open func(string, Who) backend.Backend, read func(s *state.State, afterFirst bool), events []state.Event) *state.State {
	t.Helper()
	b := open("", Bob)
	defer backend.Close(b)
	var s *state.State
	done := func() error { return nil }
	if read == nil {
		l, err := b.Lock("apply")
		must(t, err, "lock")
		defer l.Unlock()
		s, err = b.Load()
		must(t, err, "load")
		read = func(*state.State, bool) {}
	} else {
		l, base, ps := lockedPartial(t, b, "apply")
		defer l.Unlock()
		s, done = ps, base.Close
	}
	rec, err := b.OpenJournal(s)
	must(t, err, "open journal")
	read(s, false)
	// Every event appended before any is folded: an Append writes the
	// rows the events folded before it changed, so the folds all go in
	// the one write of Close.
	events = slices.Clone(events) // Append numbers them
	for i := range events {
		must(t, rec.Append(&events[i]), "append")
	}
	for i, e := range events {
		must(t, s.Fold(e), "fold")
		if i == 0 {
			read(s, true)
		}
	}
	must(t, rec.Close(), "close the journal")
	// As an apply: the people are read while it records, the snapshot
	// ends before the commit.
	must(t, done(), "close the base")
	must(t, b.Commit(s), "commit")
	return s
}
