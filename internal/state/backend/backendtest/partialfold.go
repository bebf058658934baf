package backendtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// partialFoldSetup adds to partialFixture people known by page name only
// (Zed_Z, Uli, Élise), to be found again in another letter case.
func partialFoldSetup() []state.Event {
	return append(partialFixture(), state.Event{At: At(31), Kind: state.EventSearch, Address: "search.zed", Search: &state.SearchEvent{Generation: api.Gen1,
		Request: json.RawMessage(`{"keywords":"zed"}`), Leads: []person.Lead{{PageName: "Zed_Z", FullName: "Zed", Title: "CTO"}, {PageName: "Uli", FullName: "Uli"},
			{PageName: "ÉLISE", FullName: "Élise"}}}})
}

// partialFolds are the events of a run of searches and profile reads,
// each folded one after the other into the state read whole and into a
// partial state: people shared between searches, found again with a
// networkId (re-keyed) and by their page name in another letter case
// (also one that lowers to ASCII from outside it: the Kelvin sign),
// changes of their fields (history), erased people (Fay), a lowered
// max_results (trim), a failure, the usage, a shared profile read, a
// split run completed, a profile block reading another page, people
// known by neither networkId nor page name.
func partialFolds() []state.Event {
	search := func(min int, addr string, max int, leads ...person.Lead) state.Event {
		return state.Event{At: At(min), Kind: state.EventSearch, Address: addr, Search: &state.SearchEvent{Generation: api.Gen1,
			Request: json.RawMessage(fmt.Sprintf(`{"keywords":%q}`, addr)), Leads: leads, MaxResults: max}}
	}
	profile := func(min int, addr, page, title string) state.Event {
		return state.Event{At: At(min), Kind: state.EventProfile, Address: addr, Profile: &state.ProfileEvent{Generation: api.Gen2,
			Request: json.RawMessage(`{"pageName":"` + page + `"}`), PageName: page,
			Profile: person.Profile{FullName: page, CurrentPosition: []person.Position{{JobTitle: title, Company: "ACME & Co"}}}}}
	}
	berlin := `search.cto["Berlin"]`
	return []state.Event{
		search(41, berlin, 0, person.Lead{NetworkID: "n1", PageName: "anna", FullName: "Anna", Title: "CEO"},
			person.Lead{NetworkID: "n20", PageName: "zed_z", FullName: "Zed"}, lead("n6", "fay", "Fay"), lead("n5", "eve", "Eve"), lead("n21", "uma", "Uma")),
		profile(42, "profile.cto", "GUS", "Chief"),
		profile(43, "profile.uli", "uli", "Lead"),
		{At: At(44), Kind: state.EventFailure, Address: `search.cto["Paris"]`, Failure: &state.Failure{Message: "HTTP 502", Status: 502}},
		{At: At(45), Kind: state.EventBilling, Billing: &api.Usage{RemainingRequests: 9000, InvoicingStartDate: "2026-06-01"}},
		{At: At(46), Kind: state.EventTrim, Address: berlin, Trim: &state.TrimEvent{MaxResults: 2}},
		{At: At(47), Kind: state.EventProfileShare, Address: "profile.chief", Share: &state.ProfileShareEvent{From: "profile.cto", Generation: api.Gen2,
			Request: json.RawMessage(`{"pageName":"gus"}`)}},
		search(48, `search.cto["Paris"]`, 1, person.Lead{PageName: "ANNA", FullName: "Anna"}, lead("n5", "eve", "Eve")),
		search(49, "search.kelvin", 0, person.Lead{PageName: "\u212Aim", FullName: "Kim", Title: "COO"}, lead("n22", "BEN", "Ben Two")),
		SplitEvent(At(50), []string{"B"}, 3),
		search(51, "module.m.search.team[\"a\"]", 0, person.Lead{NetworkID: "n23", PageName: "uli", FullName: "Uli"}),
		profile(52, "profile.uli", "ULI", "Head"),
		// The read of another page: its person before loses the read.
		profile(53, "profile.cto", "hal", "VP"),
		// People with no networkId and no page name (kept under a hash
		// of what they show), found again.
		search(54, "search.anon", 0, person.Lead{FullName: "Nemo", Company: "Nowhere"}),
		search(55, "search.zed", 0, person.Lead{FullName: "Nemo", Company: "Nowhere", Title: "CEO"}),
		// A page name the databases do not lower as Go does.
		search(56, "search.anon", 0, person.Lead{NetworkID: "n24", PageName: "élise", FullName: "Élise"}),
		// Moves the store makes in the rows of the people not read: two
		// searches that both found Élise swapped, an enrich block, a
		// track and the search whose call saw a change renamed
		// (renames.go).
		search(57, "search.zed", 0, person.Lead{NetworkID: "n24", PageName: "élise", FullName: "Élise"}, person.Lead{FullName: "Nemo", Company: "Nowhere", Title: "CEO"}),
		{At: At(57), Kind: state.EventMove, Address: state.MovesAddress, Move: &state.MoveEvent{Moves: []state.Move{
			{From: "search.anon", To: "search.zed"}, {From: "search.zed", To: "search.anon"}, {From: "enrich.contacts", To: "enrich.people"},
			{From: "track.champions", To: "track.watch"}, {From: `module.m.search.team["a"]`, To: `module.m.search.team["b"]`}}}},
		search(58, "search.zed", 0, person.Lead{NetworkID: "n24", PageName: "élise", FullName: "Élise", Title: "CFO"}),
	}
}

// testPartialFolds: the events of a run of searches and profile reads
// leave the same stored state whether they are folded into the state
// read whole or into a partial state (state.Base.Writable), which reads
// what each fold changes from the store first.
func testPartialFolds(t *testing.T, k Kind) {
	open, wholeOpen := k.New(t), k.New(t)
	Apply(t, open("", Alice), partialFoldSetup())
	Apply(t, wholeOpen("", Alice), partialFoldSetup())
	for i, e := range partialFolds() {
		name := fmt.Sprintf("event %d (%s %s)", i, e.Kind, e.Address)
		foldStored(t, wholeOpen, true, e)
		foldStored(t, open, false, e)
		want, err := loadOnce(wholeOpen("", Alice))
		must(t, err, "load whole")
		got, err := loadOnce(open("", Alice))
		must(t, err, "load partial")
		same(t, want, got, name+": the state after the fold differs (-whole +partial)")
	}
}

// foldStored folds e as an apply records it (journal, fold, commit) into
// the state open opens, read whole or in part.
func foldStored(t *testing.T, open func(string, Who) backend.Backend, whole bool, e state.Event) {
	t.Helper()
	var read func(*state.State, bool) // nil: read whole
	if !whole {
		read = func(*state.State, bool) {}
	}
	foldTogether(t, open, read, []state.Event{e})
}

// testPartialFoldFails: a result recorded in the journal that a partial
// state cannot fold in (its store's snapshot is gone: the reads fail) is
// not lost. The state refuses every later write (the journal's close, the
// commit), so the recorded event stays, and the next load folds it into
// the state read whole: the same state as a fold of it read whole.
func testPartialFoldFails(t *testing.T, k Kind) {
	open, wholeOpen := k.New(t), k.New(t)
	Apply(t, open("", Alice), partialFoldSetup())
	Apply(t, wholeOpen("", Alice), partialFoldSetup())
	e := partialFolds()[0]
	Apply(t, wholeOpen("", Alice), []state.Event{e})

	b := open("", Bob)
	l, base, s := lockedPartial(t, b, "apply")
	rec, err := b.OpenJournal(s)
	must(t, err, "open journal")
	must(t, base.Close(), "end the snapshot") // every read fails from now on
	must(t, rec.Append(&e), "append")
	if err := s.Fold(e); err == nil {
		t.Fatal("a search folded into a partial state whose store is closed")
	}
	if err := rec.Close(); err == nil || !strings.Contains(err.Error(), "refusing to write") {
		t.Errorf("the journal's close after a failed fold: %v, want a refusal", err)
	}
	if err := b.Commit(s); err == nil || !strings.Contains(err.Error(), "refusing to write") {
		t.Errorf("the commit after a failed fold: %v, want a refusal", err)
	}
	l.Unlock()
	backend.Close(b)
	want, err := loadOnce(wholeOpen("", Alice))
	must(t, err, "load whole")
	got, err := loadOnce(open("", Alice))
	must(t, err, "load after the failed fold")
	same(t, want, got, "the state after a fold that failed, loaded again (-folded whole +kept in the journal)")
}

// foldEachAlike folds each of events into the stored state of wholeOpen
// read whole and into that of open read in part, and checks after each
// that the two stored states are the same.
func foldEachAlike(t *testing.T, open, wholeOpen func(string, Who) backend.Backend, events []state.Event) {
	t.Helper()
	for i, e := range events {
		name := fmt.Sprintf("event %d (%s %s)", i, e.Kind, e.Address)
		foldStored(t, wholeOpen, true, e)
		foldStored(t, open, false, e)
		want, err := loadOnce(wholeOpen("", Alice))
		must(t, err, "load whole")
		got, err := loadOnce(open("", Alice))
		must(t, err, "load partial")
		same(t, want, got, name+": the state after the fold differs (-whole +partial)")
	}
}
