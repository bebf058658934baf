package backendtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// wholeOnly is a backend whose Base is the state read whole (it hides
// the backend's BaseOpener): state rm and state mv then change the state
// read whole, as before partial states.
type wholeOnly struct{ backend.Backend }

// partialFixture is Events with a module's search sharing people with the
// others (seeing a change of one, whom it finds no more), a second enrich
// block and a failure of the module's block: people named by several
// blocks, and by blocks whose records no longer list them.
func partialFixture() []state.Event {
	team := func(min int, title string) state.Event {
		return state.Event{At: At(min), Kind: state.EventSearch, Address: `module.m.search.team["a"]`, Search: &state.SearchEvent{Generation: api.Gen1,
			Request: json.RawMessage(`{"keywords":"team"}`), Leads: []person.Lead{lead("n1", "anna", "Anna"), {NetworkID: "n2", PageName: "ben", FullName: "Ben", Title: title},
				lead("n10", "kim", "Kim")}}}
	}
	// The third run finds Ben no more: his change stays the search's.
	gone := team(30, "CEO")
	gone.Search.Leads = append(gone.Search.Leads[:1], gone.Search.Leads[2])
	return append(Events(), team(27, "CTO"), team(28, "CEO"), gone,
		state.Event{At: At(29), Kind: state.EventEnrich, Address: "module.m.enrich.team", Enrich: &state.EnrichEvent{PersonID: "n10", Credits: 1,
			Result: person.EnrichedProfile{NetworkID: "n10", PageName: "kim", FullName: "Kim", Email: "kim@acme.example", ValidationStatus: person.StatusValid}}},
		state.Event{At: At(29), Kind: state.EventFailure, Address: "module.m.enrich.team", Failure: &state.Failure{Message: "HTTP 500", Status: 500}})
}

// partialEdits are the state rm and state mv the test runs both ways,
// one after the other on the same state: a move when To is set, else a
// removal of Rm. Each meets records: moves of every kind first, then
// removals of what they moved, then edits that are refused.
var partialEdits = []struct {
	Rm       []string
	From, To string
}{
	{From: "enrich.contacts", To: "module.dach.enrich.contacts"},
	{From: "search.cto", To: "module.dach.search.cto"},
	{From: `module.dach.search.cto["Paris"]`, To: `module.dach.search.cto["Lyon"]`},
	{From: "track.champions", To: "track.watch"},
	{From: "import.legacy", To: "import.crm"},
	{From: "profile.cto", To: "profile.chief"},
	{From: "search.gone", To: "search.went"},
	{From: "search.split", To: `search.split["all"]`},
	{From: "module.m", To: "module.n"},
	{From: "module.n.enrich.team", To: "module.dach.enrich.contacts"},
	{From: "search.movers", To: "search.more"},
	{From: "search.nothing", To: "search.else"},
	{Rm: []string{`module.dach.search.cto["Berlin"]`}},
	{Rm: []string{"profile.chief", "import.crm"}},
	{Rm: []string{"track.watch"}},
	{Rm: []string{"person.n1"}},
	{Rm: []string{"person.n7", "search.more", "person.n7"}},
	{Rm: []string{"module.n.search.team"}},
	{Rm: []string{"search.movers", "person.n8"}},
	{Rm: []string{"search.nothing"}},
	{Rm: []string{"module.dach", "person.nobody"}},
	{Rm: []string{"module.dach"}},
}

// testPartialEdits: state rm and state mv (run.StateRm, run.StateMv)
// leave the same stored state, and answer the same, whether the backend
// opens a partial state (the records and the people the edit touches:
// state.Base.Writable) or the state read whole (wholeOnly); and a store
// counts the names of its people (Base.Names) as the people do.
func testPartialEdits(t *testing.T, k Kind) {
	open, wholeOpen := k.New(t), k.New(t)
	Apply(t, open("", Alice), partialFixture())
	Apply(t, wholeOpen("", Alice), partialFixture())
	for i, e := range partialEdits {
		checkNames(t, open)
		name := "rm " + strings.Join(e.Rm, " ")
		if e.To != "" {
			name = "mv " + e.From + " " + e.To
			checkMovedNames(t, open, e.From, e.To)
		}
		wantOut, want := partialEdit(t, wholeOpen, true, i, e.Rm, e.From, e.To)
		gotOut, got := partialEdit(t, open, false, i, e.Rm, e.From, e.To)
		if wantOut != gotOut {
			t.Fatalf("%s: the answers differ:\nwhole:   %s\npartial: %s", name, wantOut, gotOut)
		}
		same(t, want, got, name+": the state after the edit differs (-whole +partial)")
	}
}

// checkNames fails t when the store's count of the names of its people
// (Base.Names) is not the people's.
func checkNames(t *testing.T, open func(string, Who) backend.Backend) {
	t.Helper()
	b := open("", Bob)
	defer backend.Close(b)
	base, err := backend.OpenBase(b)
	must(t, err, "open base")
	names, err := base.Names()
	must(t, err, "names")
	base.Close()
	whole, err := b.Load()
	must(t, err, "load")
	if d := cmp.Diff(state.NamesOf(whole.People), names); d != "" {
		t.Fatalf("the store's names differ from the people's (-people +store):\n%s", d)
	}
}

// partialEdit runs edit i on the state open opens, read whole or in
// part, and returns its answer and the state stored after it.
func partialEdit(t *testing.T, open func(string, Who) backend.Backend, whole bool, i int, rm []string, from, to string) (string, *state.State) {
	b := open("", Bob)
	defer backend.Close(b)
	d := run.Deps{Backend: b, Now: func() time.Time { return At(40 + i) }}
	if whole {
		d.Backend = wholeOnly{b}
	}
	var out any
	var err error
	if to != "" {
		out, err = run.StateMv(d, from, to)
	} else {
		out, err = run.StateRm(d, rm)
	}
	answer := fmt.Sprintf("%+v %v", out, err)
	s, lerr := loadOnce(open("", Alice))
	must(t, lerr, "load after the edit")
	return answer, s
}

// testPartialGuard: a change of a partial state that names a person it
// never read is refused, never written as a deletion, as is a search
// whose lead IDs it never read, each by the guard of its own (the error
// names it; the same state's change of what it read passes the guard);
// the state stays as it was. (Every kind of event is folded into a
// partial state now, which reads what it changes first: the track read
// this test once saw refused is among PartialTrackFolds; a result not
// folded, which refuses every write, is PartialFoldFails'.)
func testPartialGuard(t *testing.T, k Kind) {
	open := k.New(t)
	Apply(t, open("", Alice), partialFixture())
	before, err := loadOnce(open("", Bob))
	must(t, err, "load")
	for _, tc := range []struct {
		name   string
		change *state.Changes
		want   string
	}{
		{"a person never read", &state.Changes{People: map[string]struct{}{"n2": {}}}, "refusing to write person n2"},
		{"a person never read, removed", &state.Changes{Removed: []string{"n2"}}, "refusing to remove person n2"},
		{"a search whose lead IDs were never read", &state.Changes{Searches: map[string]struct{}{"search.more": {}}}, "refusing to write search search.more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := open("", Bob)
			l, base, s := lockedPartial(t, b, "state rm")
			must(t, s.ReadRecord("person.n1"), "read n1")
			must(t, s.ReadLeads("search.movers"), "read the lead IDs of search.movers")
			if err := s.CheckWrite(&state.Changes{People: map[string]struct{}{"n1": {}}, Searches: map[string]struct{}{"search.movers": {}}}); err != nil {
				t.Fatalf("a change of the person and the lead IDs read is refused: %v", err)
			}
			base.Close()
			s.PutBackChanges(tc.change)
			if err := b.Commit(s); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("a commit of %+v: %v, want a refusal %q", tc.change, err, tc.want)
			}
			if err := s.CheckWhole(); err == nil {
				t.Fatal("a partial state may be written whole")
			}
			l.Unlock()
			backend.Close(b)
			after, err := loadOnce(open("", Alice))
			must(t, err, "load after")
			same(t, before, after, "the state after a refused commit")
		})
	}
}

// lockedPartial takes b's lock for op and opens its state as a partial
// state (Base.Writable), with the Base it reads from; the test is skipped,
// all let go, when the backend reads its state whole.
func lockedPartial(t TB, b backend.Backend, op string) (backend.Unlocker, *state.Base, *state.State) {
	l, err := b.Lock(op)
	must(t, err, "lock")
	base, err := backend.OpenBase(b)
	must(t, err, "open base")
	if !base.Stored() {
		base.Close()
		l.Unlock()
		backend.Close(b)
		t.Skip("the backend reads its state whole")
	}
	s, err := base.Writable()
	must(t, err, "writable")
	return l, base, s
}
