package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"
)

func newShowCmd(f *Factory) *cobra.Command {
	var fl arguments.ShowFlags
	cmd := &cobra.Command{
		Use:   "show [PLANFILE]",
		Short: "Show the state, or a saved plan",
		Long: `Show without an argument summarises the state: each search with when it ran
and how many results it had, each profile read, how many people and
enrichments the state holds, the last failures and the last known usage.
It prints no personal data; leadsync state show ADDRESS does, for one
address.

Show PLANFILE prints a plan saved by leadsync plan --out, as plan printed it;
with --markdown as a pull-request comment (and --compare-to BASE.json, the
difference from the base branch's plan --json).`,
		Example: `  leadsync show
  leadsync show --json
  leadsync show tomorrow.plan
  leadsync show --markdown --compare-to base-plan.json leads.plan > comment.md`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseShow, func(_ *cobra.Command, a *arguments.Show) error {
		if a.PlanFile != "" {
			return showPlan(f, a)
		}
		return showState(f, a)
	})
	return cmd
}

// showState is the state branch of `leadsync show`.
func showState(f *Factory, a *arguments.Show) error {
	src, b, err := loadBase(f, a.State)
	if err != nil {
		return err
	}
	defer src.close()
	defer b.Close()
	s := b.Records
	where := views.StateWhere{Path: src.describe(f), Exists: src.exists(s), Lock: backend.LockHolder(src.backend)}
	// An apply that holds the lock and is alive is running: its
	// enrichments in flight are no unknown outcomes, and its journal is no
	// interrupted apply's.
	if running := run.RunningOn(src.backend, s); running != nil {
		if running.Holder.Operation == "apply" {
			where.InFlight = &views.InFlight{Enrichments: running.InFlight, Credits: running.InFlightCredits}
		}
	}
	if journal, ok := backend.JournalPending(src.backend); ok && where.InFlight == nil {
		where.Journal, where.JournalPending = stateRelPath(f, journal), true
	}
	view := views.NewShowState(f.IO.Out, a.View == arguments.ViewJSON, f.Now)
	sum, err := views.SummarizeState(b, where)
	if err != nil {
		return err
	}
	return view.Show(sum)
}

// showPlan is the saved-plan branch of `leadsync show [--json|--markdown]
// FILE`: it prints the plan saved by `leadsync plan --out FILE` in the same
// form plan printed it, or as a pull-request comment (with the difference
// from the base plan of --compare-to, when given). For a file that is no
// plan the error wraps plan.ErrNotPlan, so that show can say what it
// expected. The file is relative to f.Dir.
func showPlan(f *Factory, a *arguments.Show) error {
	path := a.PlanFile
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(f.Dir, full)
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return fmt.Errorf("reading plan file %s: %w", path, planUnwrapPath(err))
	}
	p, err := plan.Decode(path, data)
	if err != nil {
		return err
	}
	if a.View == arguments.ViewMarkdown {
		var base *plan.Plan
		if a.CompareTo != "" {
			if base, err = loadBasePlan(f, a.CompareTo); err != nil {
				return err
			}
		}
		return views.PlanMarkdown(f.IO.Out, p, base)
	}
	asJSON := a.View == arguments.ViewJSON
	if err := views.NewPlan(f.IO.Out, asJSON, f.IO.ColorOut()).Plan(p); err != nil || asJSON {
		return err
	}
	// Say what the file is and what to do with it: a reviewer reading
	// "show FILE" should know when it was made and that apply checks it.
	return views.SavedPlanNote(f.IO.Out, p.CreatedAt, path)
}

// planUnwrapPath drops the path of a *fs.PathError (the caller names the file as
// the user wrote it).
func planUnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
