package backendtest

import (
	"testing"

	"github.com/leadsync/leadsync/internal/state"
)

// MoveEvent moves every kind of record the fixture's Events leave: two
// searches (one into a module), the split run under way, a profile read,
// the enrich block (its people's enrichments, Fay's erased one, the one of
// unknown outcome, its failure), a failure that stays, a track (its
// record: when it read each person, and the changes it saw, in people's
// histories) and an import (its record, the
// people it adopted).
func MoveEvent(at int) state.Event {
	return state.Event{At: At(at), Kind: state.EventMove, Address: state.MovesAddress, Move: &state.MoveEvent{Moves: []state.Move{
		{From: `search.cto["Berlin"]`, To: `module.dach.search.cto["Berlin"]`},
		{From: `search.cto["Paris"]`, To: `module.fr.search.cto["Paris"]`},
		{From: "search.split", To: `search.split["all"]`},
		{From: "profile.cto", To: "module.dach.profile.cto"},
		{From: "enrich.contacts", To: "module.dach.enrich.contacts"},
		{From: "search.gone", To: "search.went"},
		{From: "track.champions", To: "module.dach.track.champions"},
		{From: "import.legacy", To: "module.dach.import.legacy"},
	}}}
}

// A move (moved blocks, state mv) is recorded like any call: what the
// records moved hold survives a commit and a load by another process, and
// an apply killed before or after it loses nothing.
func testMoves(t *testing.T, k Kind) {
	for _, killed := range []bool{false, true} {
		open := k.New(t)
		Apply(t, open("", Alice), Events())
		evs := []state.Event{MoveEvent(30), {At: At(31), Kind: state.EventForget, Address: "search.more"}}
		want := Fold(t, append(Events(), evs...))
		if want.ErasedEnrichments["module.dach.enrich.contacts"] != 1 || want.Splits[`search.split["all"]`] == nil ||
			want.UnknownEnrichments["n5"].By != "module.dach.enrich.contacts" || want.People["n1"].Enrichment.By != "module.dach.enrich.contacts" ||
			want.Imports["module.dach.import.legacy"] == nil || !movedHistory(want, "module.dach.track.champions") ||
			want.TrackRecordOf("module.dach.track.champions") == nil || want.TrackRecordOf("track.champions") != nil {
			t.Fatal("the fixture's move does not move every kind of record")
		}
		if killed {
			b := open("", Bob)
			l, _, _ := startApply(t, b, evs[:1])
			k.Kill(t, b, l)
			got, err := loadOnce(open("", Alice))
			must(t, err, "load after the kill")
			same(t, Fold(t, append(Events(), evs[:1]...)), got, "state after a kill after the move")
			Apply(t, open("", Alice), evs[1:])
		} else {
			Apply(t, open("", Bob), evs)
		}
		got, err := loadOnce(open("", Alice))
		must(t, err, "reload")
		same(t, want, got, "state after the moves")
	}
}

// movedHistory reports whether someone's history names by, and nobody's
// names what it was moved from.
func movedHistory(s *state.State, by string) bool {
	found := false
	for _, p := range s.People {
		for _, d := range p.History {
			switch d.By {
			case by:
				found = true
			case "track.champions":
				return false
			}
		}
	}
	return found
}
