package views

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/exportformat"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/run"
)

// Streams are the outputs a view writes to, and what they are: results go
// to Out, progress and notices to ErrOut.
type Streams struct {
	Out, ErrOut io.Writer
	// ErrTTY is true when ErrOut is a terminal (a live status line).
	ErrTTY bool
	// ColorOut and ColorErr allow colour escapes on each stream.
	ColorOut, ColorErr bool
	// Now is the clock of progress timestamps, rate and time left.
	Now func() time.Time
}

// Apply is the view of leadsync apply: run.Apply drives it.
type Apply = run.ApplyView

// NewApply returns the JSON view (progress as JSON lines on Out) or the
// human one (the plan on Out, progress on ErrOut: a live status line on a
// terminal, one line per call otherwise).
func NewApply(s Streams, asJSON bool) Apply {
	if asJSON {
		return &applyJSON{s: s}
	}
	return applyHuman{s}
}

type applyHuman struct{ s Streams }

func (v applyHuman) Plan(p *plan.Plan) { _ = PlanText(v.s.Out, p, v.s.ColorOut) }

func (v applyHuman) Progress(func()) engine.Progress {
	if v.s.ErrTTY {
		return &textProgress{w: v.s.ErrOut, now: v.s.Now, live: true, color: v.s.ColorErr}
	}
	return &textProgress{w: v.s.ErrOut, now: v.s.Now}
}

func (v applyHuman) Interrupted() { interrupted(v.s.ErrOut) }

// Done shows nothing: the progress printer and the command say how it ended.
func (applyHuman) Done(error) {}

func (v applyHuman) Exports(cfg *config.Config, written []export.Written) {
	for _, w := range written {
		fmt.Fprintln(v.s.Out, WroteLine(cfg, w))
	}
	ExportWarnings(v.s.ErrOut, written)
}

// ExportWarnings prints the warnings of the files written, as apply and
// export show them: "Warning: export.crm: not run yet, so they add no
// rows: profile.advisor". An export's warnings are shared by all its files
// (a CSV export writes one per sheet and a summary): each is printed once.
func ExportWarnings(w io.Writer, written []export.Written) {
	shown := map[string]bool{}
	for _, f := range written {
		for _, msg := range f.Warnings {
			if key := f.Export + "\x00" + msg; !shown[key] {
				shown[key] = true
				fmt.Fprintf(w, "Warning: %s: %s\n", f.Export, msg)
			}
		}
	}
}

// applyJSON streams progress as JSON lines. The summary line comes last,
// once the spreadsheets are written, and lists them; an apply with nothing
// to do still ends with one.
type applyJSON struct {
	s       Streams
	prog    *jsonProgress
	sum     *engine.Summary
	cfg     *config.Config
	written []export.Written
	done    bool
}

// Plan shows nothing: the JSON stream starts with apply_start.
func (*applyJSON) Plan(*plan.Plan) {}

func (v *applyJSON) Progress(stop func()) engine.Progress {
	// A reader that goes away (apply --json | head) stops the run like
	// a first Ctrl-C: nothing more is spent for output nobody reads.
	v.prog = &jsonProgress{w: &brokenPipeWriter{w: v.s.Out, onBroken: stop}, now: v.s.Now,
		hold: func(s *engine.Summary) { v.sum = s }}
	return v.prog
}

func (v *applyJSON) Interrupted() { interrupted(v.s.ErrOut) }

// Exports keeps the files for the summary line.
func (v *applyJSON) Exports(cfg *config.Config, written []export.Written) {
	v.cfg = cfg
	v.written = append(v.written, written...)
}

// Done emits the summary line with the files written, and the error that
// ended the apply, if any. An apply that failed before anything ran emits
// nothing here: the command prints its error event.
func (v *applyJSON) Done(err error) {
	if v.done {
		return
	}
	v.done = true
	var ev map[string]any
	switch {
	case v.sum != nil:
		ev = summaryEvent(v.sum)
	case err == nil:
		// Nothing to do: no calls were made.
		ev = summaryEvent(&engine.Summary{})
		ev["no_changes"] = true
	default:
		return
	}
	files := make([]map[string]any, 0, len(v.written))
	for _, w := range v.written {
		warn := w.Warnings
		if warn == nil {
			warn = []string{}
		}
		dir := ""
		if v.cfg != nil {
			dir = v.cfg.Dir
		}
		files = append(files, map[string]any{"path": RelPath(dir, w.Path), "export": w.Export,
			"sheets": w.Sheets, "rows": w.Rows, "summary": w.Summary, "warnings": warn})
	}
	ev["files"] = files
	if err != nil && !errors.Is(err, run.ErrFailed) {
		ev["error"] = err.Error()
	}
	p := v.prog
	if p == nil {
		p = &jsonProgress{w: v.s.Out, now: v.s.Now}
	}
	p.emit(ev)
}

func interrupted(w io.Writer) {
	fmt.Fprintln(w, "\nInterrupt received: no new calls will start; waiting for the calls in flight. Press Ctrl-C again to exit at once.")
}

// brokenPipeWriter calls onBroken once writing fails (the reader of a
// pipe went away) and drops later output.
type brokenPipeWriter struct {
	w        io.Writer
	onBroken func()
	broken   bool
}

func (b *brokenPipeWriter) Write(p []byte) (int, error) {
	if b.broken {
		return len(p), nil
	}
	if _, err := b.w.Write(p); err != nil {
		b.broken = true
		b.onBroken()
	}
	return len(p), nil
}

// WroteLine is the line apply and export print for a file written:
// "Wrote out/leads.xlsx (1 sheet + Summary, 2 rows) from export.leads."
func WroteLine(cfg *config.Config, w export.Written) string {
	return "Wrote " + DescribeWritten(cfg, w) + "."
}

// DescribeWritten is one line of the human output: path, what it holds, and
// the export block it comes from.
func DescribeWritten(cfg *config.Config, w export.Written) string {
	var what string
	switch {
	case w.Summary:
		what = "summary"
	case fileOfOneSheet(w.Path):
		what = Plural(w.Rows, "row")
	default:
		what = Plural(w.Sheets, "sheet") + " + Summary, " + Plural(w.Rows, "row")
	}
	return fmt.Sprintf("%s (%s) from %s", RelPath(cfg.Dir, w.Path), what, w.Export)
}

// fileOfOneSheet reports whether path is written in a format that writes a
// file per sheet (CSV), which holds rows but no sheets to count.
func fileOfOneSheet(path string) bool {
	f, _ := exportformat.ForPath(path)
	return f.Layout == exportformat.FilePerSheet
}

// RelPath shows path relative to dir when it is inside it.
func RelPath(dir, path string) string {
	if dir == "" {
		return path
	}
	if rel, err := filepath.Rel(dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// Plan is the view of leadsync plan and show FILE: the human form (aligned
// lines with colour on a terminal) or the JSON object.
type Plan interface {
	Plan(p *plan.Plan) error
}

// NewPlan returns the JSON or the human plan view writing to w.
func NewPlan(w io.Writer, asJSON, color bool) Plan {
	if asJSON {
		return planJSON{w}
	}
	return planHuman{w, color}
}

type planHuman struct {
	w     io.Writer
	color bool
}

func (v planHuman) Plan(p *plan.Plan) error { return PlanText(v.w, p, v.color) }

type planJSON struct{ w io.Writer }

func (v planJSON) Plan(p *plan.Plan) error { return plan.WriteJSON(v.w, p) }
