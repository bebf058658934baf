package backendtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// The same calls give the same state on every backend, every field the
// fixture sets survives a commit and a load by another process, and a
// second run on top changes only what it touches.
func testRoundTrip(t *testing.T, k Kind) {
	open := k.New(t)
	want := Fold(t, Events())
	covers(t, want)
	s := Apply(t, open("", Alice), Events())
	same(t, want, s, "applied state differs from the reference")
	again, err := loadOnce(open("", Bob))
	must(t, err, "reload")
	same(t, s, again, "reloaded state differs from the committed one")
	if n := again.ErasedEnrichments["enrich.contacts"]; n != 1 {
		t.Fatalf("reload counts %d erased enrichments of enrich.contacts, want 1 (Fay's)", n)
	}
	if again.Lineage != s.Lineage || again.Serial != s.Serial {
		t.Fatalf("reload has lineage/serial %s/%d, committed %s/%d", again.Lineage, again.Serial, s.Lineage, s.Serial)
	}
	more := []state.Event{{At: At(20), Kind: state.EventForget, Address: `search.cto["Paris"]`},
		SplitEvent(At(21), []string{"B"}, 3)} // the split run completes: search.split's record
	for _, e := range more {
		must(t, want.Fold(e), "fold")
	}
	s2 := Apply(t, open("", Bob), more)
	again, err = loadOnce(open("", Alice))
	must(t, err, "reload")
	same(t, want, again, "state after a second run differs")
	if r := again.Searches["search.split"]; r == nil || r.Split == nil || len(again.Splits) != 0 {
		t.Fatalf("the completed split run is not the search's record: %+v, under way %v", r, again.Splits)
	}
	if s2.Serial <= s.Serial || again.Serial != s2.Serial {
		t.Fatalf("serial not raised by the second run: %d, then %d (reloaded %d)", s.Serial, s2.Serial, again.Serial)
	}
}

// An apply killed after any number of calls loses none of them: the next
// load holds every call completed and nothing else. Its lock went with
// it: the next run takes the lock at once, folds the calls in and
// finishes. The cuts run side by side, each on a store of its own (a
// PostgreSQL schema's set-up mostly waits for the server).
func testKilledAtAnyPoint(t *testing.T, k Kind) {
	evs := Events()
	names := make([]string, len(evs)+1)
	for cut := range names {
		names[cut] = fmt.Sprint("after ", cut)
	}
	each(t, k.Together, true, names, func(t *testing.T, cut int) {
		open := k.New(t)
		b := open("", Alice)
		l, _, _ := startApply(t, b, evs[:cut])
		k.Kill(t, b, l)
		next := open("", Bob)
		got, err := next.Load()
		must(t, err, "load after the kill")
		same(t, Fold(t, evs[:cut]), got, "state after the kill lost or changed calls")
		s := Apply(t, next, evs[cut:]) // the dead run's lock: taken at once
		same(t, Fold(t, evs), s, "resumed state differs")
		again, err := loadOnce(open("", Alice))
		must(t, err, "reload")
		same(t, s, again, "reloaded resumed state differs")
	})
}

// A second run is refused at once, with the holder named; once the holder
// lets go, the lock is free.
func testLockRefused(t *testing.T, k Kind) {
	open := k.New(t)
	l, err := open("", Alice).Lock("apply")
	must(t, err, "lock")
	_, err = open("", Bob).Lock("apply")
	if err == nil {
		t.Fatal("second lock taken while held")
	}
	for _, want := range []string{"alice@laptop", "pid 4242", `"apply"`, "2026-05-01 13:00:00 UTC"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not say %q", err, want)
		}
	}
	var le backend.LockedError
	if !errors.As(err, &le) || le.Holder() == nil || le.Holder().Who != "alice@laptop" || le.Holder().Operation != "apply" {
		t.Errorf("the refusal is no backend.LockedError naming alice: %#v", err)
	}
	must(t, l.Unlock(), "unlock")
	l2, err := open("", Bob).Lock("apply")
	must(t, err, "lock after unlock")
	must(t, l2.Unlock(), "unlock")
}

// LockWait gets the lock once the holder lets go, and gives up at once
// without a timeout.
func testLockWait(t *testing.T, k Kind) {
	open := k.New(t)
	l, err := open("", Alice).Lock("apply")
	must(t, err, "lock")
	if _, err := open("", Bob).LockWait(context.Background(), "apply", 0); err == nil {
		t.Fatal("lock taken while held")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		l2, err := open("", Bob).LockWait(ctx, "apply", time.Hour)
		if err == nil {
			err = l2.Unlock()
		}
		done <- err
	}()
	must(t, l.Unlock(), "unlock")
	must(t, <-done, "lock wait")
}

// The lock of a run that was killed goes with it: the next run takes it at
// once, without waiting and without force-unlock.
func testLockOfADeadHolder(t *testing.T, k Kind) {
	open := k.New(t)
	b := open("", Alice)
	l, err := b.Lock("apply")
	must(t, err, "lock")
	k.Kill(t, b, l)
	l2, err := open("", Bob).LockWait(context.Background(), "apply", 0)
	must(t, err, "lock of a dead holder")
	must(t, l2.Unlock(), "unlock")
}

// Plan, show and export read without the lock while an apply holds it and
// is midway: they see the calls it completed, in a consistent state.
func testSnapshot(t *testing.T, k Kind) {
	open := k.New(t)
	evs := Events()
	b := open("", Alice)
	l, rec, s := startApply(t, b, evs[:3])
	defer l.Unlock()
	got, err := loadOnce(open("", Bob))
	must(t, err, "load while locked")
	same(t, Fold(t, evs[:3]), got, "a read during the apply")
	must(t, rec.Close(), "close")
	must(t, b.Commit(s), "commit")
}

// Lineage stays, serial rises with every write: what stale saved plans
// are detected by.
func testLineageSerial(t *testing.T, k Kind) {
	open := k.New(t)
	first := Apply(t, open("", Alice), Events()[:2])
	planned, err := loadOnce(open("", Bob)) // a plan saved now records this
	must(t, err, "load")
	Apply(t, open("", Alice), Events()[2:4])
	now, err := loadOnce(open("", Bob))
	must(t, err, "load")
	if now.Lineage != first.Lineage || planned.Lineage != first.Lineage {
		t.Fatalf("lineage changed: %s, %s, %s", first.Lineage, planned.Lineage, now.Lineage)
	}
	if now.Serial <= planned.Serial {
		t.Fatalf("serial %d after a run, %d before: a saved plan would not be seen as stale", now.Serial, planned.Serial)
	}
}

// The service a state was filled from and the configuration that fills
// it (State.Service, State.Configuration, set by an apply) are kept by a
// commit, replaced by a later one, and carried by a push. A backend that
// reads the workspace's row alone (backend.ReadWorkspaceRow) gives them
// too.
func testServiceHeader(t *testing.T, k Kind) {
	open := k.New(t)
	b := open("", Alice)
	l, err := b.Lock("apply")
	must(t, err, "lock")
	s, err := b.Load()
	must(t, err, "load")
	s.SetService("sandbox")
	s.SetConfiguration("team-leads")
	rec, err := b.OpenJournal(s)
	must(t, err, "open journal")
	e := Events()[0]
	must(t, rec.Append(&e), "append")
	must(t, s.Fold(e), "fold")
	must(t, rec.Close(), "close")
	must(t, b.Commit(s), "commit")
	must(t, l.Unlock(), "unlock")
	got, err := loadOnce(open("", Bob))
	must(t, err, "load")
	if got.Service != "sandbox" || got.Configuration != "team-leads" {
		t.Fatalf("service, configuration after a commit: %q, %q", got.Service, got.Configuration)
	}
	row, err := rowOnce(open("", Bob))
	must(t, err, "read the workspace's row")
	if (row == nil) == backend.ReadsInPart(b) || row != nil && (row.Service != "sandbox" || row.Configuration != "team-leads") {
		t.Fatalf("the workspace's row read alone: %+v; want the service and configuration committed (a database's)", row)
	}
	// A commit of the header alone (no event) keeps the new one.
	l, err = b.Lock("apply")
	must(t, err, "lock")
	s, err = b.Load()
	must(t, err, "load")
	s.SetService("api.example.com 0123456789abcdef")
	must(t, b.Commit(s), "commit")
	must(t, l.Unlock(), "unlock")
	got, err = loadOnce(open("", Bob))
	must(t, err, "load")
	if got.Service != "api.example.com 0123456789abcdef" {
		t.Fatalf("service after a second commit: %q", got.Service)
	}
	if p, ok := backend.PusherOf(b); ok {
		pushed := Fold(t, Events()[:2])
		pushed.SetService("pushed.example.com")
		pushed.SetConfiguration("pushed")
		l, err = b.Lock("state push")
		must(t, err, "lock")
		must(t, p.Push(pushed, true), "push")
		must(t, l.Unlock(), "unlock")
		got, err = loadOnce(open("", Bob))
		must(t, err, "load")
		if got.Service != "pushed.example.com" || got.Configuration != "pushed" {
			t.Fatalf("service, configuration after a push: %q, %q", got.Service, got.Configuration)
		}
	}
}

// The data mark an export records (state.DataMark) is that of the state
// the apply committed, equal to a reload's; taking and releasing the lock
// moves it on no backend, and a killed apply's calls move it though
// nothing was committed.
func testDataMark(t *testing.T, k Kind) {
	open := k.New(t)
	committed := Apply(t, open("", Alice), Events()[:2]).DataMark()
	reloaded, err := loadOnce(open("", Bob))
	must(t, err, "reload")
	if m := reloaded.DataMark(); !m.Equal(committed) {
		t.Fatalf("reload's mark %+v, the committed state's %+v", m, committed)
	}
	l, err := open("", Alice).Lock("state rm")
	must(t, err, "lock")
	must(t, l.Unlock(), "unlock")
	again, err := loadOnce(open("", Bob))
	must(t, err, "reload")
	if m := again.DataMark(); !m.Equal(committed) {
		t.Fatalf("a lock taken and released moved the mark: %+v, was %+v", m, committed)
	}
	b := open("", Alice)
	l, _, _ = startApply(t, b, Events()[2:3])
	k.Kill(t, b, l)
	killed, err := loadOnce(open("", Bob))
	must(t, err, "load after the kill")
	if m := killed.DataMark(); m.Equal(committed) {
		t.Fatalf("a killed apply's call left the mark as it was: %+v", m)
	}
}
