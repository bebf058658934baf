package backendtest

import (
	"testing"

	"github.com/leadsync/leadsync/internal/state/backend"
)

// testKilledRemovalFolded: a run killed after it recorded the removal of
// 100 of 150 people and before it wrote the rows leaves them to the next
// load, which applies the removal and says so (backend.Unfolded). A
// commit of that state with nothing else to do, as an apply with no call
// makes, writes the removal into the stored state: the next handle's load
// applies nothing more and gives the same state. Neither state has a lead
// ID naming a person it does not hold (State.Check): compared with the
// events folded alone, a fold that kept the removed people's IDs in the
// lead lists would pass, as both would keep them.
func testKilledRemovalFolded(t *testing.T, k Kind) {
	open := k.New(t)
	evs := manyPeopleEvents(150, 100)
	want := Fold(t, evs)
	Apply(t, open("", Alice), evs[:len(evs)-1])
	b := open("", Bob)
	l, _, _ := startApply(t, b, evs[len(evs)-1:])
	k.Kill(t, b, l)

	next := open("", Alice)
	defer backend.Close(next)
	l, err := next.Lock("apply")
	must(t, err, "lock after the kill")
	s, err := next.Load()
	must(t, err, "load after the kill")
	same(t, want, s, "the state loaded after the kill is not the removal applied")
	must(t, s.Check(), "the state loaded after the kill")
	if !backend.Unfolded(next) {
		t.Error("the load after the kill applied the recorded removal, but the backend does not say so")
	}
	if n := backend.UnfoldedCalls(next); n != 1 {
		t.Errorf("the load after the kill applied %d recorded calls, says the backend; want 1", n)
	}
	must(t, next.Commit(s), "commit")
	must(t, l.Unlock(), "unlock")
	if backend.Unfolded(next) || backend.UnfoldedCalls(next) != 0 {
		t.Error("after the commit, the backend still says the removal is not folded in")
	}

	last := open("", Bob)
	defer backend.Close(last)
	again, err := last.Load()
	must(t, err, "reload")
	same(t, want, again, "the state after the commit differs from the events folded")
	must(t, again.Check(), "the state after the commit")
	if backend.Unfolded(last) {
		t.Error("the removal is still recorded and not folded in after the commit")
	}
}
