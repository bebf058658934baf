package e2e

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/testenv"
)

// TestApplySaysTheEventsItFolded: an apply with nothing to do after a run
// killed with a recorded call not folded in says so in one line after
// "No changes", and apply --json says it in its summary (folded_events).
// The killed run is a recording left open: a billing call recorded, the
// process gone before its commit.
func TestApplySaysTheEventsItFolded(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes against a sandbox")
	t.Parallel()
	noExport, _, _ := strings.Cut(killConfig, `export "out"`)
	h := newHarness(t, sandbox.Options{Seed: 9, RateLimit: 20, RateWindow: time.Second / 20, NoLatency: true}, noExport)
	if r := h.run("apply", "--auto-approve"); r.code != 0 {
		t.Fatalf("first apply:\n%s", r)
	}
	leaveARecordedCall(t, h.statePath())
	r := h.run("apply", "--auto-approve")
	if r.code != 0 || !strings.Contains(r.stdout, "No changes: everything is up to date.\nFolded 1 recorded event of an interrupted command into the state.\n") {
		t.Fatalf("apply after the kill:\n%s", r)
	}
	leaveARecordedCall(t, h.statePath())
	r = h.run("apply", "--auto-approve", "--json")
	var sum struct {
		NoChanges    bool `json:"no_changes"`
		FoldedEvents int  `json:"folded_events"`
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &sum); err != nil || r.code != 0 || !sum.NoChanges || sum.FoldedEvents != 1 {
		t.Fatalf("apply --json after the kill (%v):\n%s", err, r)
	}
	if r := h.run("apply", "--auto-approve"); r.code != 0 || strings.Contains(r.stdout, "Folded") {
		t.Errorf("a third apply folds nothing and says nothing of it:\n%s", r)
	}
}

// leaveARecordedCall records a billing call in the state at path, as an
// apply killed before its commit leaves it.
func leaveARecordedCall(t *testing.T, path string) {
	t.Helper()
	b := local.Open(path)
	defer backend.Close(b)
	st, err := b.Load()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := b.OpenJournal(st)
	if err != nil {
		t.Fatal(err)
	}
	ev := state.Event{At: time.Now().UTC(), Kind: state.EventBilling, Billing: &api.Usage{RemainingRequests: 9000}}
	if err := rec.Append(&ev); err != nil {
		t.Fatal(err)
	}
}
