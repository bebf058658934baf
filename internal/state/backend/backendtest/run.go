package backendtest

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
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
	// Together, when more than 0, runs that many cases at once, and as
	// many of KilledAtAnyPoint's cuts, each in a goroutine of its own
	// (not bound by go test's -parallel, the number of cores). The pg
	// cases mostly wait for the server: two at a time took 122 s at load
	// average 13, six at a time 74 s.
	Together int
}

// Run runs the conformance suite on k. Every backend runs it from its own
// tests; a backend without workspaces or push skips those parts. With
// k.Parallel the cases run side by side, with k.Together (pg) that many
// at a time: a new case uses only the places New gives it. Run is
// long because it lists every case of the suite, one a line.
func Run(t *testing.T, k Kind) {
	type tc struct {
		name string
		run  func(*testing.T, Kind)
	}
	cases := []tc{
		{"RoundTrip", testRoundTrip},
		{"Base", testBase},
		{"PeopleByID", testPeopleByID},
		{"BaseHonoursErasures", testBaseHonoursErasures},
		{"EnrichIndex", testEnrichIndex},
		{"TrackSketches", testTrackSketches},
		{"SketchLeads", testSketchLeads},
		{"EnrichedLeadsAfter", testEnrichedLeadsAfter},
		{"CensusSketches", testCensusSketches},
		{"LeadPages", testLeadPages},
		{"ValueLists", testValueLists},
		{"EnrichmentCompanies", testEnrichmentCompanies},
		{"KilledAtAnyPoint", testKilledAtAnyPoint},
		{"Moves", testMoves},
		{"MovesWriteFails", testMovesWriteFails},
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
		{"RemovalForm", testRemovalForm},
		{"RemovesManyPeople", testRemovesManyPeople},
		{"PartialRemovalOfSomeoneUnheld", testPartialRemovalOfSomeoneUnheld},
		{"PartialRemovalCutsLists", testPartialRemovalCutsLists},
		{"RecoverRepairsNobody", testRecoverRepairsNobody},
		{"KilledRemovalFolded", testKilledRemovalFolded},
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
		{"EnrichmentsElsewhereWhole", testEnrichmentsElsewhereWhole},
		{"Ledger", testLedger},
		{"LedgerHoldsOfADeadRun", testLedgerHolds},
		{"LedgerSince", testLedgerSince},
		{"ErasureRecord", testErasureRecord},
		{"Claims", testClaims},
		{"ClaimsAtOnce", testClaimsAtOnce},
		{"EnrichmentOfARunningApply", testEnrichmentOfARunningApply},
	}
	if k.Together > 0 || k.Parallel {
		// The longest cases first: started last, one of them would end
		// the suite alone.
		slices.SortStableFunc(cases, func(a, b tc) int { return longFirst(a.name) - longFirst(b.name) })
	}
	names := make([]string, len(cases))
	for i, c := range cases {
		names[i] = c.name
	}
	each(t, k.Together, k.Parallel, names, func(t *testing.T, i int) { cases[i].run(t, k) })
}

// longCases are the cases that take longest on pg (11-37 s each at load
// average 31), longest first; on SQLite too (4-13 s). PartialRetention,
// PartialMove and PartialManyTrackApply, once started mid-way, were the
// last to end on both.
var longCases = []string{"PartialForget", "PartialRetention", "PartialEdits", "PartialMove", "PartialEnrichApply",
	"PartialManyEnrichApply", "PartialApply", "PartialFolds", "PartialTrackFolds", "PartialEnrichFolds",
	"KilledAtAnyPoint", "PartialManyTrackApply"}

// longFirst orders name among the cases: the long ones by their place in
// longCases, the rest after them.
func longFirst(name string) int {
	if i := slices.Index(longCases, name); i >= 0 {
		return i
	}
	return len(longCases)
}

// each runs fn(t, i) as the subtest names[i] for each name: together of
// them at a time, in the order given, when together is more than 0; else
// one after the other, or side by side under go test's -parallel when
// parallel is set (go test lets paused subtests go about in the order
// they were run: the long ones, run first, mostly start first).
func each(t *testing.T, together int, parallel bool, names []string, fn func(t *testing.T, i int)) {
	if together <= 0 {
		for i, name := range names {
			t.Run(name, func(t *testing.T) {
				if parallel {
					t.Parallel()
				}
				fn(t, i)
			})
		}
		return
	}
	slots := make(chan struct{}, together)
	var wg sync.WaitGroup
	for i, name := range names {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			t.Run(name, func(t *testing.T) { fn(t, i) })
		}()
	}
	wg.Wait()
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

// Interrupted leaves in b what an apply killed half-way leaves: the
// first events of Events applied and committed by one apply, the others
// recorded by the next, an enrichment in flight last, never folded into
// the stored rows nor committed. It returns the state that apply held,
// every call folded in; the caller then closes b, as the kill did.
func Interrupted(t TB, b backend.Backend) *state.State {
	t.Helper()
	evs := Events()
	const committed = 5
	Apply(t, b, evs[:committed])
	inFlight := state.Event{At: At(30), Kind: state.EventEnrichPending, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: "n3", Credits: 1}}
	_, s := record(t, b, append(evs[committed:], inFlight))
	return s
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
	w, g := canonJSON(t, want), canonJSON(t, got)
	if bytes.Equal(w, g) {
		return // equal Canons, without sorting and indenting them
	}
	if d := cmp.Diff(canonOf(t, w), canonOf(t, g)); d != "" {
		t.Fatalf("%s (-want +got):\n%s", what, d)
	}
}

// loadOnce loads b's state and closes b: a handle opened for one read
// keeps no connection (two on pg) open to the end of its test, where
// several cases at once would reach the server's limit.
func loadOnce(b backend.Backend) (*state.State, error) {
	defer backend.Close(b)
	return b.Load()
}

// rowOnce reads the workspace's row of b alone, then closes b.
func rowOnce(b backend.Backend) (*state.State, error) {
	defer backend.Close(b)
	return backend.ReadWorkspaceRow(b)
}
