package plan

import (
	"runtime/debug"
	"slices"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/testenv"
)

// TestReuseKeysLowerTheCollectorsGoal: the other workspaces' keys are
// listed at reuseGCPercent (keysGC), by reuseReads up front and by
// listHeld at the limit, and GOGC is set back once the people they name
// are found.
func TestReuseKeysLowerTheCollectorsGoal(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	defer keepReadKnobs()()
	f, _, _ := othersWorld(1)
	var during []int
	keys := func() ([]string, error) {
		during = append(during, testenv.GCPercent())
		return []string{"p:nobody-here"}, nil
	}
	opts := Options{Reuse: func([]string) (map[string]state.Reusable, error) { return nil, nil }, ReuseHeld: keys}
	if _, _, ok, err := reuseReads(opts, enrichBase(f.st), reuseScope{}); !ok || err != nil {
		t.Fatalf("reuseReads: %v, %v", ok, err)
	}
	r := &reuseFacts{unread: true, list: heldLister{keys: keys, store: enrichBase(f.st)}}
	if !r.listHeld(&EnrichFacts{}) {
		t.Fatal("listHeld found nobody")
	}
	if len(during) != 2 || during[0] != reuseGCPercent || during[1] != reuseGCPercent {
		t.Errorf("keys listed at GOGC %v, want %d twice", during, reuseGCPercent)
	}
	if got := testenv.GCPercent(); got != 200 {
		t.Errorf("GOGC %d once the people held are found, want 200", got)
	}
}

// TestPeopleHeldReadLowerTheCollectorsGoal: once the plan reads people
// held as it meets them (heldGC), GOGC is reuseGCPercent until the plan
// is built (settle); a GOGC already lower is kept.
func TestPeopleHeldReadLowerTheCollectorsGoal(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	v := &env{}
	v.heldGC()
	if got := testenv.GCPercent(); got != reuseGCPercent {
		t.Errorf("GOGC %d while the people held are read, want %d", got, reuseGCPercent)
	}
	v.settle()
	if got := testenv.GCPercent(); got != 200 {
		t.Errorf("GOGC %d once the plan is built, want 200", got)
	}
	debug.SetGCPercent(25)
	v.heldGC()
	v.settle()
	if got := testenv.GCPercent(); got != 25 {
		t.Errorf("GOGC %d after a plan begun at 25, want 25", got)
	}
}

// gcAtGet is packingStore noting GOGC at each read of people (Get).
type gcAtGet struct {
	packingStore
	seen *[]int
}

func (m gcAtGet) Get(ids []string) ([]*state.Person, error) {
	*m.seen = append(*m.seen, testenv.GCPercent())
	return m.packingStore.Get(ids)
}

// TestAPlanReadingPeopleHeldLowersTheCollectorsGoal: in the worlds of
// TestReuseFirstHeldMakesTheSamePlan, a plan that reads people held
// elsewhere as it meets them (readHeld) reads them at reuseGCPercent,
// not at the GOGC it began with. Some of the first 200 worlds do.
func TestAPlanReadingPeopleHeldLowersTheCollectorsGoal(t *testing.T) {
	defer keepReadKnobs()()
	defer debug.SetGCPercent(debug.SetGCPercent(200))
	lowered := 0
	for seed := range 200 {
		f, o, _ := firstHeldWorld(seed)
		var seen []int
		planPartialIn(t, seed, f, o, gcAtGet{packingStore{enrichMemStore{memStore{f.st}}}, &seen})
		lowered += btoi(slices.Contains(seen, reuseGCPercent))
	}
	if lowered == 0 {
		t.Errorf("no plan of 200 read people at GOGC %d", reuseGCPercent)
	}
}
