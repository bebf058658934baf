package backendtest

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// manyPeopleEvents fill a state with n people, in two searches that
// share some, every third enriched and some seen drifting (a history),
// then remove gone of them for retention in one event, as an apply of
// leadsync { retention } does.
func manyPeopleEvents(n, gone int) []state.Event {
	var a, b []person.Lead
	for i := range n {
		l := lead(fmt.Sprintf("m%03d", i), fmt.Sprintf("page%03d", i), fmt.Sprint("Person ", i))
		if i < 2*n/3 {
			a = append(a, l)
		}
		if i >= n/3 {
			l.Title = "CEO" // a drift of those a saw first
			b = append(b, l)
		}
	}
	search := func(min int, addr string, leads []person.Lead) state.Event {
		return state.Event{At: At(min), Kind: state.EventSearch, Address: addr, Search: &state.SearchEvent{Generation: api.Gen1,
			Request: json.RawMessage(`{"keywords":"CTO"}`), Leads: leads}}
	}
	evs := []state.Event{search(1, `search.m["a"]`, a), search(2, `search.m["b"]`, b)}
	for i := 0; i < n; i += 3 {
		id := fmt.Sprintf("m%03d", i)
		evs = append(evs, state.Event{At: At(3), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: id, Credits: 1,
			Result: person.EnrichedProfile{NetworkID: id, Email: id + "@acme.example", ValidationStatus: person.StatusValid}}})
	}
	ids := make([]string, gone)
	for i := range gone {
		ids[i] = fmt.Sprintf("m%03d", (i*7)%n) // not in order
	}
	return append(evs, state.Event{At: At(4), Kind: state.EventForgetPeople, Address: state.PeopleAddress,
		People: &state.ForgetPeopleEvent{Reason: state.ForgetRetention, PersonIDs: ids}})
}

// testRemovesManyPeople: a run that removes a hundred people at once
// (the SQLite store deletes them in pages: sqlstate's removePeople)
// leaves the state the events fold to, with their enrichments, history
// and places in the searches' lead lists gone, and the others kept.
func testRemovesManyPeople(t *testing.T, k Kind) {
	open := k.New(t)
	evs := manyPeopleEvents(150, 100)
	want := Fold(t, evs)
	if len(want.People) != 50 || len(want.ErasedEnrichments) == 0 {
		t.Fatalf("the events leave %d people and %v erased enrichments: the test removes too few", len(want.People), want.ErasedEnrichments)
	}
	s := Apply(t, open("", Alice), evs[:len(evs)-1])
	Apply(t, open("", Bob), evs[len(evs)-1:])
	again, err := loadOnce(open("", Alice))
	must(t, err, "reload")
	same(t, want, again, "the state after removing 100 of 150 people differs from the events folded")
	if len(s.People) != 150 {
		t.Fatalf("the first run wrote %d people, want 150", len(s.People))
	}
}
