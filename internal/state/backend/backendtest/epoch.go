package backendtest

import (
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// A workspace deleted and made again, then pushed the same lineage, can
// reach the serial an export was recorded at with other data (a person
// forgotten meanwhile): its epoch differs, so the export's mark does not
// match. Within one making of the workspace the epoch stays, push or not.
func testDataMarkMadeAgain(t *testing.T, k Kind) {
	open := k.New(t)
	set := workspaces(t, open, Alice)
	pushed := func(b backend.Backend, s *state.State, force bool) *state.State {
		t.Helper()
		l, err := b.Lock("state push")
		must(t, err, "lock")
		defer l.Unlock()
		must(t, pusher(t, b).Push(s, force), "push")
		got, err := b.Load()
		must(t, err, "load")
		return got
	}
	// The file pushed: all the events, or all but the last (other data,
	// one lineage).
	file := func(less bool) *state.State {
		evs := Events()
		if less {
			evs = evs[:len(evs)-1]
		}
		s := Fold(t, evs)
		s.Lineage, s.Serial = "lineage-of-d.json", 21
		return s
	}
	must(t, set.CreateWorkspace("cp"), "workspace new")
	b := open("cp", Alice)
	pushed(b, file(false), false)
	pushed(b, file(false), true)
	exported := pushed(b, file(false), true)
	rec := exported.DataMark()
	if rec.Epoch == "" {
		t.Fatal("a workspace made by workspace new has no epoch")
	}
	again, err := loadOnce(open("cp", Bob))
	must(t, err, "load")
	if !again.DataMark().Equal(rec) {
		t.Fatalf("the same state reloaded: mark %+v, recorded %+v", again.DataMark(), rec)
	}
	must(t, set.DeleteWorkspace("cp", true), "workspace delete")
	must(t, set.CreateWorkspace("cp"), "workspace new again")
	b = open("cp", Alice)
	pushed(b, file(true), false)
	pushed(b, file(true), true)
	now := pushed(b, file(true), true)
	if now.Lineage != exported.Lineage || now.Serial != exported.Serial {
		t.Fatalf("the case under test needs one lineage and serial: %s %d, then %s %d", exported.Lineage, exported.Serial, now.Lineage, now.Serial)
	}
	if Canon(t, now) == Canon(t, exported) {
		t.Fatal("the second state should hold other data")
	}
	if now.DataMark().Equal(rec) {
		t.Fatalf("other data, same mark: %+v and %+v", now.DataMark(), rec)
	}
}
