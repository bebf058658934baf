package backendtest

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// failingMoves is a backend whose recorders' Checkpoint fails while the
// run goes on: the backend's own write of the moves, stopped (a write
// that failed, its outcome unknown to the run).
type failingMoves struct{ backend.Backend }

func (f failingMoves) Unwrap() backend.Backend { return f.Backend }

func (f failingMoves) OpenJournal(s *state.State) (backend.Recorder, error) {
	rec, err := f.Backend.OpenJournal(s)
	if err != nil {
		return nil, err
	}
	return failingRecorder{rec}, nil
}

type failingRecorder struct{ backend.Recorder }

func (r failingRecorder) Checkpoint(context.Context) error {
	cp, ok := r.Recorder.(engine.Checkpointer)
	if !ok {
		return errors.New("the recorder writes no moves of their own")
	}
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	return cp.Checkpoint(stopped)
}

// testMovesWriteFails: an apply whose write of the moves fails stops
// before any call with one error naming it, and writes nothing more (the
// write may have committed); the next load folds the recorded moves in,
// and the apply run again leaves the state of an apply that never failed.
func testMovesWriteFails(t *testing.T, k Kind) {
	whole, part := partialPair(t, k)
	const apiBlock = "api {\n  sandbox = true\n  rate_limit = 50\n  parallelism = 2\n}\n"
	first, second := apiBlock+movedSteps[0].blocks, apiBlock+movedSteps[1].blocks
	wholeDir, partDir := t.TempDir(), t.TempDir()
	partialApplyAt(t, whole, wholeDir, first, nil, false, false, At(60))
	_, before, _ := partialApplyAt(t, part, partDir, first, nil, false, false, At(60))
	cfg, diags := config.Load(config.LoadOptions{Dir: partDir, FS: fstest.MapFS{"main.leads.hcl": {Data: []byte(second)}}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	b := part("", Bob)
	svc := sandboxClient(t)
	d := run.Deps{Backend: failingMoves{b}, Service: func() (api.Service, error) { return svc, nil },
		Now: func() time.Time { return At(120) }, Interrupt: make(chan os.Signal)}
	err := run.Apply(context.Background(), d, run.ApplyOptions{Config: cfg, AutoApprove: true}, &applyView{})
	backend.Close(b)
	var moves *engine.MovesError
	if !errors.As(err, &moves) || !strings.HasPrefix(err.Error(), "writing the moves: ") || strings.Contains(err.Error(), "saving state") {
		t.Fatalf("apply whose moves' write failed: %v, want one error naming it", err)
	}
	got, err := loadOnce(part("", Alice))
	must(t, err, "load after the failed apply")
	if addrs := got.MovableAddresses(); !slices.Contains(addrs, "search.t2") || slices.Contains(addrs, "search.t") {
		t.Fatalf("the next load did not fold the recorded moves in: %v", got.MovableAddresses())
	}
	if d := cmp.Diff(before.Searches["search.u"], got.Searches["search.u"]); d != "" || before.Searches["search.u"] == nil {
		t.Errorf("search.u changed: a call was made (-before +after):\n%s", d)
	}
	_, want, _ := partialApplyAt(t, whole, wholeDir, second, nil, false, false, At(120))
	_, again, _ := partialApplyAt(t, part, partDir, second, nil, false, false, At(120))
	same(t, want, again, "the apply run again after the failed write differs from one that never failed (-never +again)")
}
