package backendtest

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// TB is testing.TB.
type TB = testing.TB

// Kind is one kind of backend under test.
type Kind struct {
	// New makes an empty place for states (a folder, a database schema)
	// for one test and returns how to open a handle on its workspace ws
	// ("" for the default one) as w. Each handle is a process of its own
	// (a teammate, or the same user's next run), whose clock is Now.
	New func(t *testing.T) func(ws string, w Who) backend.Backend
	// Kill does to b, and to the lock it holds, what the kernel does when
	// its process is killed: its connections and files are closed (its
	// lock goes with them), nothing more is written.
	Kill func(t *testing.T, b backend.Backend, lock backend.Unlocker)
	// KillClaims does to a holder of claims (backend.Claims) what the
	// kernel does when its process is killed: its connection or its
	// holder file is closed, nothing more is written. Nil for a backend
	// that keeps no claims.
	KillClaims func(t *testing.T, c backend.Claims)
	// Parallel runs the cases side by side (t.Parallel, as many at once as
	// go test's -parallel). A backend whose handles mostly wait for a
	// server sets it: the pg suite took 33-42 s one case after the other,
	// 18-26 s side by side. Every case therefore keeps to the places it
	// gets from New and to handles of its own: nothing it checks may
	// depend on another case's stores, locks or sessions.
	Parallel bool
}

// Run runs the conformance suite on k. Every backend runs it from its own
// tests; a backend without workspaces or push skips those parts. With
// k.Parallel (pg) the cases run side by side: a new case uses only the
// places New gives it.
func Run(t *testing.T, k Kind) {
	for _, c := range []struct {
		name string
		run  func(*testing.T, Kind)
	}{
		{"RoundTrip", testRoundTrip},
		{"Base", testBase},
		{"PeopleByID", testPeopleByID},
		{"BaseHonoursErasures", testBaseHonoursErasures},
		{"EnrichIndex", testEnrichIndex},
		{"ValueLists", testValueLists},
		{"KilledAtAnyPoint", testKilledAtAnyPoint},
		{"Moves", testMoves},
		{"PartialEdits", testPartialEdits},
		{"PartialGuard", testPartialGuard},
		{"PartialFolds", testPartialFolds},
		{"PartialFoldFails", testPartialFoldFails},
		{"PartialEnrichFolds", testPartialEnrichFolds},
		{"PartialTrackFolds", testPartialTrackFolds},
		{"PartialApply", testPartialApply},
		{"PartialEnrichApply", testPartialEnrichApply},
		{"PartialManyEnrichApply", testPartialManyEnrichApply},
		{"ReuseKeys", testReuseKeys},
		{"ReuseOnce", testReuseOnce},
		{"PartialReuseApply", testPartialReuseApply},
		{"PartialTrackApply", testPartialTrackApply},
		{"PartialEnrichTrackApply", testPartialEnrichTrackApply},
		{"PartialManyTrackApply", testPartialManyTrackApply},
		{"PartialTrackApplyColleagues", testPartialTrackApplyColleagues},
		{"PartialForget", testPartialForget},
		{"PartialRetention", testPartialRetention},
		{"PartialMove", testPartialMove},
		{"TrackPlan", testTrackPlan},
		{"TrackPlanColleagues", testTrackPlanColleagues},
		{"LeadLists", testLeadLists},
		{"LockRefusedNamesHolder", testLockRefused},
		{"LockWait", testLockWait},
		{"LockOfADeadHolder", testLockOfADeadHolder},
		{"SnapshotWhileApplying", testSnapshot},
		{"LineageSerial", testLineageSerial},
		{"ServiceHeader", testServiceHeader},
		{"DataMark", testDataMark},
		{"Workspaces", testWorkspaces},
		{"PushPull", testPushPull},
		{"PushNeedsTheWorkspace", testPushNeedsTheWorkspace},
		{"PushManyPeople", testPushManyPeople},
		{"PushBrokenHalfWay", testPushBrokenHalfWay},
		{"DataMarkWorkspaceMadeAgain", testDataMarkMadeAgain},
		{"CrossWorkspace", testCrossWorkspace},
		{"Ledger", testLedger},
		{"LedgerHoldsOfADeadRun", testLedgerHolds},
		{"LedgerSince", testLedgerSince},
		{"ErasureRecord", testErasureRecord},
		{"Claims", testClaims},
		{"ClaimsAtOnce", testClaimsAtOnce},
		{"EnrichmentOfARunningApply", testEnrichmentOfARunningApply},
	} {
		t.Run(c.name, func(t *testing.T) {
			if k.Parallel {
				t.Parallel()
			}
			c.run(t, k)
		})
	}
}

// Apply runs the life of one apply on b: lock, load, record each event
// (append, then fold, as the runner does), close, commit, unlock. It
// returns the state committed.
func Apply(t TB, b backend.Backend, evs []state.Event) *state.State {
	t.Helper()
	l, err := b.Lock("apply")
	must(t, err, "lock")
	defer l.Unlock()
	rec, s := record(t, b, evs)
	must(t, rec.Close(), "close")
	must(t, b.Commit(s), "commit")
	must(t, l.Unlock(), "unlock")
	return s
}

// startApply is an apply stopped after evs: locked, recording, the events
// appended and folded; no Close, no Commit.
func startApply(t TB, b backend.Backend, evs []state.Event) (backend.Unlocker, backend.Recorder, *state.State) {
	t.Helper()
	l, err := b.Lock("apply")
	must(t, err, "lock")
	rec, s := record(t, b, evs)
	return l, rec, s
}

// record loads the state of b (whose lock the caller holds), opens its
// journal, and appends and folds evs, as an apply does.
func record(t TB, b backend.Backend, evs []state.Event) (backend.Recorder, *state.State) {
	t.Helper()
	s, err := b.Load()
	must(t, err, "load")
	rec, err := b.OpenJournal(s)
	must(t, err, "open journal")
	for i := range evs {
		e := evs[i]
		must(t, rec.Append(&e), "append %d", i)
		must(t, s.Fold(e), "fold %d", i)
	}
	return rec, s
}

func must(t TB, err error, what string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(what, args...), err)
	}
}

// same fails t when two states differ (as files, serial and lineage
// aside).
func same(t TB, want, got *state.State, what string) {
	t.Helper()
	if d := cmp.Diff(Canon(t, want), Canon(t, got)); d != "" {
		t.Fatalf("%s (-want +got):\n%s", what, d)
	}
}
