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
	"github.com/leadsync/leadsync/internal/textfmt"
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
// human one (the plan and the run's summary on Out, progress on ErrOut: a
// live status line on a terminal, one line per call otherwise).
func NewApply(s Streams, asJSON bool) Apply {
	if asJSON {
		return &applyJSON{s: s}
	}
	return &applyHuman{s: s}
}

// NewApplyJSON is the JSON view of an apply whose configuration drew
// warnings (printed on stderr as well): its apply_start carries them with
// the plan's own, as plan --json does in its diagnostics.
func NewApplyJSON(s Streams, warnings []plan.Diagnostic) Apply {
	return &applyJSON{s: s, warnings: warnings}
}

// applyHuman draws the plan and the summary on Out and progress on ErrOut. The end of the
// run's summary is held until Apply returns (Done): only then is it known
// whether the state was saved and the spreadsheets written, so that
// "Apply complete" is never printed before an error that stops them.
type applyHuman struct {
	s       Streams
	sum     *engine.Summary
	cfg     *config.Config
	written []export.Written
	done    bool
}

func (v *applyHuman) Plan(p *plan.Plan) { _ = PlanText(v.s.Out, p, v.s.ColorOut) }

func (v *applyHuman) Progress(func()) engine.Progress {
	hold := func(s *engine.Summary) { v.sum = s }
	if v.s.ErrTTY {
		return &textProgress{w: v.s.ErrOut, now: v.s.Now, live: true, color: v.s.ColorErr, hold: hold}
	}
	return &textProgress{w: v.s.ErrOut, now: v.s.Now, hold: hold}
}

func (v *applyHuman) Interrupted() { interrupted(v.s.ErrOut) }

// WritingAfterStop says on ErrOut that the spreadsheets are written.
func (v *applyHuman) WritingAfterStop(n int) { writingAfterStop(v.s.ErrOut, n) }

// Folded says, on Out beside the plan, that the state now holds the
// recorded events of an interrupted command.
func (v *applyHuman) Folded(events int) { fmt.Fprintln(v.s.Out, FoldedLine(events)) }

// FoldedLine is the line of an apply that wrote the recorded events of an
// interrupted command into the state: "Folded 3 recorded events of an
// interrupted command into the state." The events are an apply's calls,
// and the removals and moves an apply, forget or state mv recorded.
func FoldedLine(events int) string {
	return fmt.Sprintf("Folded %s of an interrupted command into the state.", textfmt.Plural(events, "recorded event"))
}

// Exports keeps the files written: they are listed after the summary.
func (v *applyHuman) Exports(cfg *config.Config, written []export.Written) {
	v.cfg = cfg
	v.written = append(v.written, written...)
}

// Done prints the run's summary, ended by what became of the run (err):
// complete, stopped or aborted, and the spreadsheets that were not
// written; then the files written and their warnings.
func (v *applyHuman) Done(err error) {
	if v.done {
		return
	}
	v.done = true
	if v.sum != nil {
		// A result, as Terraform's "Apply complete!": on Out, with the
		// plan and the files written (apply > apply.log keeps it).
		writeSummary(v.s.Out, v.sum, endingOf(v.sum, v.cfg, err))
	}
	for _, w := range v.written {
		fmt.Fprintln(v.s.Out, WroteLine(v.cfg, w))
	}
	ExportWarnings(v.s.ErrOut, v.written)
}

// ending is how the summary of a run ends.
type ending struct {
	// word is "Apply complete", "Apply stopped" or "Apply aborted".
	word string
	// notWritten are the spreadsheets the apply was to write and did not
	// ("out/a.xlsx (export.a)").
	notWritten []string
}

// endingOf is the ending of the summary s of an apply that returned err.
func endingOf(s *engine.Summary, cfg *config.Config, err error) ending {
	e := ending{word: "Apply complete"}
	switch {
	case errors.Is(err, run.ErrAborted):
		e.word = "Apply aborted"
	case s.Stopped != "" || (err != nil && !errors.Is(err, run.ErrFailed)):
		e.word = "Apply stopped"
	}
	var ue *run.UnwrittenError
	if errors.As(err, &ue) {
		dir := ""
		if cfg != nil {
			dir = cfg.Dir
		}
		for _, f := range ue.Files {
			e.notWritten = append(e.notWritten, RelPath(dir, f.Path)+" ("+f.Export+")")
		}
	}
	return e
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
	s        Streams
	warnings []plan.Diagnostic // the configuration's
	prog     *jsonProgress
	sum      *engine.Summary
	cfg      *config.Config
	written  []export.Written
	folded   int // Folded's events
	done     bool
}

// Plan shows nothing: the JSON stream starts with apply_start.
func (*applyJSON) Plan(*plan.Plan) {}

func (v *applyJSON) Progress(stop func()) engine.Progress {
	// A reader that goes away (apply --json | head) stops the run like
	// a first Ctrl-C: nothing more is spent for output nobody reads.
	v.prog = &jsonProgress{w: &brokenPipeWriter{w: v.s.Out, onBroken: stop}, now: v.s.Now,
		hold: func(s *engine.Summary) { v.sum = s }, warnings: v.warnings, errOut: v.s.ErrOut}
	return v.prog
}

func (v *applyJSON) Interrupted() { interrupted(v.s.ErrOut) }

// WritingAfterStop says on ErrOut that the spreadsheets are written.
func (v *applyJSON) WritingAfterStop(n int) { writingAfterStop(v.s.ErrOut, n) }

// Folded keeps the events for the summary line (folded_events).
func (v *applyJSON) Folded(events int) { v.folded = events }

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
	notWritten := make([]map[string]any, 0)
	var ue *run.UnwrittenError
	if errors.As(err, &ue) {
		dir := ""
		if v.cfg != nil {
			dir = v.cfg.Dir
		}
		for _, f := range ue.Files {
			notWritten = append(notWritten, map[string]any{"path": RelPath(dir, f.Path), "export": f.Export})
		}
	}
	ev["not_written"] = notWritten
	ev["folded_events"] = v.folded
	if err != nil && !errors.Is(err, run.ErrFailed) {
		ev["error"] = err.Error()
	}
	p := v.prog
	if p == nil {
		p = &jsonProgress{w: v.s.Out, now: v.s.Now}
	}
	p.emit(ev)
}

// interrupted acknowledges the first interrupt at once; the run says how
// many calls it waits for as it stops (Stopping).
func interrupted(w io.Writer) {
	fmt.Fprintln(w, "\nInterrupt received: no new calls will start. Press Ctrl-C again to exit at once (the calls in flight are then abandoned, and may be charged).")
}

// writingAfterStop says, after a first interrupt or a closed standard
// output (which counts as one), that n spreadsheets are written before
// the apply ends: with millions of people that takes minutes, which the
// next Ctrl-C saves.
func writingAfterStop(w io.Writer, n int) {
	fmt.Fprintf(w, "Writing %s (a Ctrl-C now skips them; `leadsync export` writes them later)\n", textfmt.Plural(n, "spreadsheet"))
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

// ApplyCancelled says the confirmation was not answered "yes".
func ApplyCancelled(w io.Writer) {
	fmt.Fprintln(w, "\nApply cancelled.")
}

// ApplyAborted says a second interrupt ended apply at once, and where
// (backend, as the backend describes itself) the finished calls are kept.
func ApplyAborted(w io.Writer, backend string) {
	fmt.Fprintf(w, "Aborted. Every call that finished is recorded with the %s; the next command folds it into the state.\n", backend)
}

// SheetsSkipped says a second interrupt stopped apply while it wrote the
// spreadsheets, the state saved.
func SheetsSkipped(w io.Writer) {
	fmt.Fprintln(w, "Aborted. The state is saved; `leadsync export` writes the spreadsheets.")
}
