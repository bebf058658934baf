package backendtest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// nobodyVictims are the people of Events whom leaveNobody takes out of the
// state without their references: Anna (first of a lead list of three,
// and in an import), the person of profile.cto, and x1.[A] (a node of the split
// run under way).
var nobodyVictims = []string{"n1", "page:gus", "x1.[A]"}

// testRecoverRepairsNobody: state recover (run.StateRecover) repairs
// every record naming nobody on the stored state, read in part or whole.
// The lead lists, the split node and the import lose those IDs (the
// others kept in order); the profile read of someone gone is removed. The
// state it leaves is the one the removal of those people (RemovePerson)
// leaves, and its check passes. Recover says how many of each it
// repaired and the serial it wrote. A second recover writes nothing: the
// serial stays, and it says none.
func testRecoverRepairsNobody(t *testing.T, k Kind) {
	want := Fold(t, Events())
	for _, id := range nobodyVictims {
		if !want.RemovePerson(id) {
			t.Fatalf("no %s in Events", id)
		}
	}
	for _, whole := range []bool{false, true} {
		t.Run(fmt.Sprintf("whole=%v", whole), func(t *testing.T) {
			open := k.New(t)
			if whole && !readsInPart(open("", Alice)) {
				t.Skip("the backend reads its state whole: the other case")
			}
			Apply(t, open("", Alice), Events())
			leaveNobody(t, open("", Alice))
			res := recoverOnce(t, open, whole, 0)
			wantRepairs := state.Repairs{LeadIDs: 1, Searches: 1, SplitIDs: 1, Splits: 1, ImportIDs: 1, Imports: 1, Profiles: 1}
			if res.Repaired != wantRepairs {
				t.Errorf("recover repaired %+v, want %+v", res.Repaired, wantRepairs)
			}
			got, err := loadOnce(open("", Alice))
			must(t, err, "load after recover")
			must(t, got.Check(), "the check after recover")
			same(t, want, got, "the state after recover (-people removed +recovered)")
			if res.Serial != got.Serial {
				t.Errorf("recover said serial %d, the state is at %d", res.Serial, got.Serial)
			}
			if res := recoverOnce(t, open, whole, 1); res.Repaired.Any() || res.Serial != 0 {
				t.Errorf("a second recover repaired %+v, serial %d", res.Repaired, res.Serial)
			}
			again, err := loadOnce(open("", Alice))
			must(t, err, "load after the second recover")
			if again.Serial != got.Serial {
				t.Errorf("a second recover on a healthy state: serial %d, was %d", again.Serial, got.Serial)
			}
		})
	}
}

// readsInPart reports whether b reads its people on request
// (backend.ReadsInPart), and closes b.
func readsInPart(b backend.Backend) bool {
	defer backend.Close(b)
	return backend.ReadsInPart(b)
}

// recoverOnce runs state recover on the state open opens, read whole
// (wholeOnly) or as its backend reads it.
func recoverOnce(t *testing.T, open func(string, Who) backend.Backend, whole bool, i int) *run.Recovered {
	t.Helper()
	b := open("", Bob)
	defer backend.Close(b)
	d := run.Deps{Backend: b, Now: func() time.Time { return At(40 + i) }}
	if whole {
		d.Backend = wholeOnly{b}
	}
	res, err := run.StateRecover(d)
	must(t, err, "state recover")
	return res
}

// leaveNobody takes nobodyVictims out of the state of b without their
// references, which leadsync never does: their found_by emptied, the
// removal cuts no lead list, import or profile read; a victim put back
// into the split node the removal cut.
func leaveNobody(t *testing.T, b backend.Backend) {
	t.Helper()
	defer backend.Close(b)
	l, err := b.Lock("apply")
	must(t, err, "lock")
	defer l.Unlock()
	s, err := b.Load()
	must(t, err, "load")
	var node *state.SplitNode
	for _, nd := range s.Splits["search.split"].Nodes {
		if slices.Contains(nd.LeadIDs, "x1.[A]") {
			node = nd
		}
	}
	if node == nil || s.Profiles["profile.cto"].PersonID != "page:gus" {
		t.Fatalf("Events changed: no split node of x1.[A], or profile.cto's person is %s", s.Profiles["profile.cto"].PersonID)
	}
	for _, id := range nobodyVictims {
		s.People[id].FoundBy = nil
		s.RemovePerson(id)
	}
	node.LeadIDs = append(node.LeadIDs, "x1.[A]") // RemovePerson writes the split runs
	must(t, b.Commit(s), "commit")
	must(t, l.Unlock(), "unlock")
}
