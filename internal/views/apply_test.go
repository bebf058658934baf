package views

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
)

// failingWriter is a pipe whose reader went away.
type failingWriter struct{ writes int }

func (w *failingWriter) Write(p []byte) (int, error) { w.writes++; return 0, errors.New("broken pipe") }

func TestApplyViews(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) }
	cfg := &config.Config{Dir: "/work"}
	// A CSV export's files share its warnings.
	written := []export.Written{
		{Path: "/work/out/a.csv", Export: "export.a", Rows: 3, Warnings: []string{"w1"}},
		{Path: "/work/out/a.summary.csv", Export: "export.a", Summary: true, Warnings: []string{"w1"}},
	}
	p := &plan.Plan{Totals: plan.Totals{RateLimit: 1}}

	var out, errOut bytes.Buffer
	h := NewApply(Streams{Out: &out, ErrOut: &errOut, Now: now}, false)
	h.Plan(p)
	h.Exports(cfg, written)
	h.Interrupted()
	if _, ok := h.Progress(nil).(*textProgress); !ok {
		t.Error("human view: progress is not the text printer")
	}
	// The files written are listed when the apply is done.
	h.Done(nil)
	if got := out.String(); !strings.Contains(got, "No changes") || !strings.Contains(got, "Wrote out/a.csv (3 rows) from export.a.\n") {
		t.Errorf("human stdout:\n%s", got)
	}
	if got := errOut.String(); strings.Count(got, "Warning: export.a: w1\n") != 1 || strings.Count(got, "w1") != 1 || !strings.Contains(got, "Interrupt received") {
		t.Errorf("human stderr (the warning once, with its export):\n%s", got)
	}

	out.Reset()
	errOut.Reset()
	j := NewApply(Streams{Out: &out, ErrOut: &errOut, Now: now}, true)
	j.Plan(p)
	j.Exports(cfg, written)
	if out.Len() != 0 || errOut.Len() != 0 {
		t.Errorf("JSON view shows the plan or the exports: %q %q", out.String(), errOut.String())
	}

	// A JSON stream whose reader went away stops the run once, and
	// writes no more.
	fw := &failingWriter{}
	stops := 0
	pr := NewApply(Streams{Out: fw, ErrOut: &errOut, Now: now}, true).Progress(func() { stops++ })
	pr.Start(p, 1, 0)
	pr.CallStart(engine.Call{Seq: 1, Kind: kind.Search, Address: "search.a"})
	if stops != 1 || fw.writes != 1 {
		t.Errorf("stops %d, writes %d; want 1 and 1", stops, fw.writes)
	}
}

// TestApplyViewsSayTheEventsFolded: an apply that wrote the recorded
// events of an interrupted command into the state says how many, after
// its "No changes" in the human view and as folded_events in the JSON
// summary (0 when it wrote none).
func TestApplyViewsSayTheEventsFolded(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) }
	p := &plan.Plan{Totals: plan.Totals{RateLimit: 1}}
	var out bytes.Buffer
	h := NewApply(Streams{Out: &out, ErrOut: &bytes.Buffer{}, Now: now}, false)
	h.Plan(p)
	h.Folded(3)
	h.Done(nil)
	if got := out.String(); !strings.HasSuffix(got, "No changes: everything is up to date.\nFolded 3 recorded events of an interrupted command into the state.\n") {
		t.Errorf("human stdout:\n%s", got)
	}
	if got := FoldedLine(1); got != "Folded 1 recorded event of an interrupted command into the state." {
		t.Errorf("one call: %q", got)
	}
	for _, calls := range []int{0, 2} {
		out.Reset()
		j := NewApply(Streams{Out: &out, ErrOut: &bytes.Buffer{}, Now: now}, true)
		j.Plan(p)
		if calls > 0 {
			j.Folded(calls)
		}
		j.Done(nil)
		var sum struct {
			NoChanges    bool `json:"no_changes"`
			FoldedEvents *int `json:"folded_events"`
		}
		if err := json.Unmarshal(out.Bytes(), &sum); err != nil || !sum.NoChanges || sum.FoldedEvents == nil || *sum.FoldedEvents != calls {
			t.Errorf("JSON summary after %d calls folded (%v):\n%s", calls, err, out.String())
		}
	}
}

// After a first interrupt, both forms say on stderr, before the
// spreadsheets are written, how many and how to skip them; nothing goes
// to stdout (the JSON form's stream stays JSON).
func TestWritingAfterStopIsOneLineOnStderr(t *testing.T) {
	const want = "Writing 2 spreadsheets (a Ctrl-C now skips them; `leadsync export` writes them later)\n"
	for _, asJSON := range []bool{false, true} {
		var out, errOut bytes.Buffer
		NewApply(Streams{Out: &out, ErrOut: &errOut, Now: time.Now}, asJSON).WritingAfterStop(2)
		if errOut.String() != want || out.Len() != 0 {
			t.Errorf("json %v: stderr %q, stdout %q; want %q on stderr alone", asJSON, errOut.String(), out.String(), want)
		}
	}
}
