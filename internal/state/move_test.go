package state

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
)

// movedState is a state with records at every kind of address a move
// carries: searches (one failed since), a split run under way, a profile
// read, an enrich block with a person enriched, one erased since and one
// of unknown outcome.
func movedState(t *testing.T) *State {
	t.Helper()
	s := New()
	for _, e := range []Event{
		searchEv(day(1), `search.cto["Berlin"]`, 0, lead("n1", "anna", "Anna"), lead("n2", "ben", "Ben")),
		searchEv(day(1), `search.cto["Hamburg"]`, 0, lead("n2", "ben", "Ben"), lead("n3", "cleo", "Cleo")),
		searchEv(day(1), "search.keep", 0, lead("n1", "anna", "Anna")),
		profileEv(day(1), "profile.founder", "dora", "Dora"),
		enrichEv(day(2), "enrich.contacts", "n1", person.EnrichedProfile{NetworkID: "n1", Email: "a@x.example", Title: "VP"}),
		enrichEv(day(2), "enrich.contacts", "n3", person.EnrichedProfile{NetworkID: "n3", Email: "c@x.example"}),
		{At: day(2), Kind: EventEnrichUnknown, Address: "enrich.contacts", Enrich: &EnrichEvent{PersonID: "n2", Credits: 1}, Failure: &Failure{Message: "timeout"}},
		{At: day(3), Kind: EventForgetPeople, Address: PeopleAddress, People: &ForgetPeopleEvent{Reason: ForgetRetention, PersonIDs: []string{"n3"}}},
		{At: day(3), Kind: EventFailure, Address: `search.cto["Berlin"]`, Failure: &Failure{Message: "500"}},
		splitEv(day(3), "search.split", []string{}, api.MaxResults),
	} {
		if err := s.Fold(e); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestFoldMoveCarriesEverything(t *testing.T) {
	s := movedState(t)
	if s.ErasedEnrichments["enrich.contacts"] != 1 || s.Splits["search.split"] == nil {
		t.Fatalf("fixture: erased %v, splits %v", s.ErasedEnrichments, s.Splits)
	}
	moves := []Move{
		{From: `search.cto["Berlin"]`, To: `module.dach.search.cto["Berlin"]`},
		{From: `search.cto["Hamburg"]`, To: `module.dach.search.cto["Hamburg"]`},
		{From: "profile.founder", To: `profile.founder["dora"]`},
		{From: "enrich.contacts", To: "module.dach.enrich.contacts"},
		{From: "search.split", To: "search.split2"},
	}
	if err := s.Fold(Event{At: day(4), Kind: EventMove, Address: MovesAddress, Move: &MoveEvent{Moves: moves}}); err != nil {
		t.Fatal(err)
	}
	if got := s.Addresses(false); !reflect.DeepEqual(got, []string{`module.dach.search.cto["Berlin"]`, `module.dach.search.cto["Hamburg"]`, "search.keep", `profile.founder["dora"]`}) {
		t.Errorf("addresses: %q", got)
	}
	if r := s.Searches[`module.dach.search.cto["Berlin"]`]; r.Address != `module.dach.search.cto["Berlin"]` || len(r.LeadIDs) != 2 {
		t.Errorf("moved search: %+v", r)
	}
	if r := s.Profiles[`profile.founder["dora"]`]; r.Address != `profile.founder["dora"]` {
		t.Errorf("moved profile: %+v", r)
	}
	if s.Failures[`module.dach.search.cto["Berlin"]`] == nil || s.Failures[`search.cto["Berlin"]`] != nil {
		t.Errorf("failures: %v", s.Failures)
	}
	if s.Splits["search.split2"] == nil || s.Splits["search.split"] != nil {
		t.Errorf("splits: %v", s.Splits)
	}
	if got := s.People["n1"].FoundBy; !reflect.DeepEqual(got, []string{`module.dach.search.cto["Berlin"]`, "search.keep"}) {
		t.Errorf("n1 found by %q", got)
	}
	if got := s.People["n1"].Enrichment.By; got != "module.dach.enrich.contacts" {
		t.Errorf("n1 enriched by %s", got)
	}
	if h := s.People["n1"].History; len(h) == 0 || h[len(h)-1].By != "module.dach.enrich.contacts" {
		t.Errorf("n1's history: %+v", h)
	}
	if s.ErasedEnrichments["module.dach.enrich.contacts"] != 1 || s.ErasedEnrichments["enrich.contacts"] != 0 {
		t.Errorf("erased enrichments: %v", s.ErasedEnrichments)
	}
	if u := s.UnknownEnrichments["n2"]; u == nil || u.By != "module.dach.enrich.contacts" {
		t.Errorf("unknown enrichment: %+v", u)
	}
	if got := s.UnknownBy("module.dach.enrich.contacts"); len(got) != 1 {
		t.Errorf("UnknownBy = %v", got)
	}
	if err := s.Check(); err != nil {
		t.Errorf("the moved state does not check: %v", err)
	}
}

func TestFoldMoveChainAndConflict(t *testing.T) {
	s := movedState(t)
	// One event moving search.keep onto cto["Berlin"] while cto["Berlin"]
	// moves on: both records survive. A move onto a record that stays is
	// skipped, and MoveConflicts names it.
	moves := []Move{
		{From: `search.cto["Berlin"]`, To: "search.berlin"},
		{From: "search.keep", To: `search.cto["Berlin"]`},
		{From: "profile.founder", To: `search.cto["Hamburg"]`},
	}
	if got := s.MoveConflicts(moves); !reflect.DeepEqual(got, moves[2:]) {
		t.Errorf("conflicts = %+v", got)
	}
	keep := s.Searches["search.keep"].LeadIDs
	if err := s.Fold(Event{At: day(4), Kind: EventMove, Address: MovesAddress, Move: &MoveEvent{Moves: moves}}); err != nil {
		t.Fatal(err)
	}
	if s.Searches["search.berlin"] == nil || !reflect.DeepEqual(s.Searches[`search.cto["Berlin"]`].LeadIDs, keep) || s.Searches["search.keep"] != nil {
		t.Errorf("chain: %q", s.Addresses(false))
	}
	if s.Profiles["profile.founder"] == nil {
		t.Error("the move onto a record was not skipped")
	}
}

func TestMovedLeavesTheOriginal(t *testing.T) {
	s := movedState(t)
	before := encoded(t, s)
	c := s.Moved([]Move{{From: `search.cto["Berlin"]`, To: "search.b"}, {From: "enrich.contacts", To: "enrich.c"}})
	if d := cmp.Diff(before, encoded(t, s)); d != "" {
		t.Fatalf("Moved changed the original:\n%s", d)
	}
	if c.Searches["search.b"] == nil || c.People["n1"].Enrichment.By != "enrich.c" || c.ErasedEnrichments["enrich.c"] != 1 {
		t.Errorf("the copy is not moved: %q", c.Addresses(false))
	}
	// The same as folding the event into the state itself.
	s.Fold(Event{At: day(4), Kind: EventMove, Address: MovesAddress, Move: &MoveEvent{Moves: []Move{{From: `search.cto["Berlin"]`, To: "search.b"}, {From: "enrich.contacts", To: "enrich.c"}}}})
	if d := cmp.Diff(encoded(t, s), encoded(t, c)); d != "" {
		t.Errorf("Moved differs from the fold:\n%s", d)
	}
}

func TestMoveEventValidates(t *testing.T) {
	for _, m := range [][]Move{
		nil,
		{{From: "search.a", To: ""}},
		{{From: "search.a", To: "search.a"}},
		{{From: "search.a", To: "search.b"}, {From: "search.a", To: "search.c"}},
		{{From: "search.a", To: "search.c"}, {From: "search.b", To: "search.c"}},
	} {
		e := Event{At: day(1), Kind: EventMove, Address: MovesAddress, Move: &MoveEvent{Moves: m}}
		if err := e.Validate(); err == nil {
			t.Errorf("%+v: valid", m)
		}
	}
	// Written to a journal and read back, it folds alike.
	e := Event{Seq: 3, At: day(1), Kind: EventMove, Address: MovesAddress, Move: &MoveEvent{Moves: []Move{{From: "search.keep", To: "module.m.search.keep"}}}}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	var back Event
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, e) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
}

// TestMoveConflictsWithInstances: the instances of a block count as state
// at the block, and a block's records without a key as state at each of
// its instances: a move onto the other form would leave both forms, one
// of which the configuration does not declare (the next plan forgets it).
// Moving the records of the other form away in the same event frees it.
func TestMoveConflictsWithInstances(t *testing.T) {
	s := movedState(t)
	for _, tc := range []struct {
		name  string
		moves []Move
		held  []string // RecordsAt of the first move's destination
		bad   bool
	}{
		{"onto a block whose instances hold records", []Move{{From: "search.keep", To: "search.cto"}},
			[]string{`search.cto["Berlin"]`, `search.cto["Hamburg"]`}, true},
		{"onto an instance of a block that holds records", []Move{{From: `search.cto["Berlin"]`, To: `search.keep["Berlin"]`}},
			[]string{"search.keep"}, true},
		{"onto a count instance of such a block", []Move{{From: "profile.founder", To: "search.keep[0]"}},
			[]string{"search.keep"}, true},
		{"onto another instance of a block", []Move{{From: "search.keep", To: `search.cto["Wien"]`}}, nil, false},
		{"onto a block in a module of the same name", []Move{{From: "search.keep", To: "module.m.search.cto"}}, nil, false},
		{"the instances move away in the same event", []Move{
			{From: `search.cto["Berlin"]`, To: `search.x["Berlin"]`},
			{From: `search.cto["Hamburg"]`, To: `search.x["Hamburg"]`},
			{From: "search.keep", To: "search.cto"},
		}, nil, false},
		{"only one instance moves away", []Move{
			{From: "search.keep", To: "search.cto"},
			{From: `search.cto["Berlin"]`, To: `search.x["Berlin"]`},
		}, []string{`search.cto["Hamburg"]`}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := s.MoveConflicts(tc.moves)
			if bad := len(got) > 0; bad != tc.bad {
				t.Fatalf("conflicts = %+v, want conflict %v", got, tc.bad)
			}
			if tc.bad && got[0] != tc.moves[0] {
				t.Errorf("conflicts = %+v, want %+v first", got, tc.moves[0])
			}
			if held := s.RecordsAt(tc.moves[0].To, tc.moves); !reflect.DeepEqual(held, tc.held) {
				t.Errorf("RecordsAt(%s) = %q, want %q", tc.moves[0].To, held, tc.held)
			}
		})
	}
	// A refused move is never folded: nothing changes.
	before := encoded(t, s)
	if err := s.Fold(Event{At: day(4), Kind: EventMove, Address: MovesAddress, Move: &MoveEvent{Moves: []Move{{From: "search.keep", To: "search.cto"}}}}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, encoded(t, s)); d != "" {
		t.Errorf("a move onto a block whose instances hold records changed the state:\n%s", d)
	}
}

// TestFoldMoveCarriesTrack: a track's record is its people's read times
// (Person.Tracked); a move carries it to the new address, whether or not
// the track saw a change, state mv finds it (MovableAddresses), and a move
// onto a track that holds reads is refused.
func TestFoldMoveCarriesTrack(t *testing.T) {
	s := New()
	mustFold(t, s, searchEv(day(0), "search.cto", 0, lead("n1", "anna", "Anna"), lead("n2", "ben", "Ben")))
	mustFold(t, s, trackEv(day(1), "track.t", "n1", "", ""))
	mustFold(t, s, trackEv(day(1), "track.t", "n2", "", ""))
	mustFold(t, s, trackEv(day(2), "track.other", "n2", "", ""))
	if len(s.People["n1"].History) != 0 {
		t.Fatalf("fixture: the track saw a change: %+v", s.People["n1"].History)
	}
	if !s.Holds("track.t") || !reflect.DeepEqual(s.MovableAddresses(), []string{"search.cto", "track.other", "track.t"}) {
		t.Fatalf("track.t is not movable: %q", s.MovableAddresses())
	}
	if got := s.MoveConflicts([]Move{{From: "track.t", To: "track.other"}}); len(got) != 1 {
		t.Errorf("a move onto track.other is not refused: %+v", got)
	}
	before := encoded(t, s)
	c := s.Moved([]Move{{From: "track.t", To: "track.watch"}})
	if d := cmp.Diff(before, encoded(t, s)); d != "" {
		t.Fatalf("Moved changed the original:\n%s", d)
	}
	if got := c.TrackAddresses(); !reflect.DeepEqual(got, []string{"track.other", "track.watch"}) {
		t.Errorf("the copy's tracks: %q", got)
	}
	mustFold(t, s, Event{At: day(3), Kind: EventMove, Address: MovesAddress, Move: &MoveEvent{Moves: []Move{{From: "track.t", To: "track.watch"}}}})
	if got := s.TrackAddresses(); !reflect.DeepEqual(got, []string{"track.other", "track.watch"}) {
		t.Errorf("tracks after the move: %q", got)
	}
	if s.Kind("track.t") != "" || s.Kind("track.watch") != "track" {
		t.Errorf("kinds: track.t %q, track.watch %q", s.Kind("track.t"), s.Kind("track.watch"))
	}
	for id, want := range map[string]map[string]time.Time{
		"n1": {"track.watch": day(1)},
		"n2": {"track.watch": day(1), "track.other": day(2)},
	} {
		if got := s.People[id].Tracked; !reflect.DeepEqual(got, want) {
			t.Errorf("%s tracked %v, want %v", id, got, want)
		}
	}
	if r := s.TrackRecordOf("track.watch"); r == nil || len(r.People) != 2 || !r.LastRead.Equal(day(1)) {
		t.Errorf("track.watch's record: %+v", r)
	}
	if err := s.Check(); err != nil {
		t.Errorf("the moved state does not check: %v", err)
	}
}

// TestMoveConflictsWithModuleInstances: the keys of the module calls that
// declare a block are part of its form too. module.n["de"].search.x and
// module.n.search.x cannot both be declared, so a move onto one while the
// other holds records is refused; onto another instance of the call, or
// with the keyed records moved away in the same event, it is not.
func TestMoveConflictsWithModuleInstances(t *testing.T) {
	s := New()
	for _, e := range []Event{
		searchEv(day(1), `module.n["de"].search.x`, 0, lead("n1", "anna", "Anna")),
		searchEv(day(1), "search.y", 0, lead("n2", "ben", "Ben")),
		enrichEv(day(2), `module.m.enrich.c`, "n2", person.EnrichedProfile{NetworkID: "n2", Email: "b@x.example"}),
	} {
		if err := s.Fold(e); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		moves []Move
		held  []string
	}{
		{"onto the call without a key", []Move{{From: "search.y", To: "module.n.search.x"}}, []string{`module.n["de"].search.x`}},
		{"onto a keyed block of a keyed call", []Move{{From: "search.y", To: `module.n["at"].search.x["B"]`}}, []string{`module.n["de"].search.x`}},
		{"onto another instance of the call", []Move{{From: "search.y", To: `module.n["at"].search.x`}}, nil},
		{"onto an instance of a call whose block holds records without a key", []Move{{From: "search.y", To: `module.m[0].enrich.c`}}, []string{"module.m.enrich.c"}},
		{"the keyed records move away in the same event", []Move{
			{From: `module.n["de"].search.x`, To: "search.z"},
			{From: "search.y", To: "module.n.search.x"},
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			last := tc.moves[len(tc.moves)-1]
			got := s.MoveConflicts(tc.moves)
			if bad := len(got) > 0; bad != (tc.held != nil) {
				t.Fatalf("conflicts = %+v, want conflict %v", got, tc.held != nil)
			}
			if held := s.RecordsAt(last.To, tc.moves); !reflect.DeepEqual(held, tc.held) {
				t.Errorf("RecordsAt(%s) = %q, want %q", last.To, held, tc.held)
			}
		})
	}
}
