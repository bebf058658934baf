package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"
)

func newPlanCmd(f *Factory) *cobra.Command {
	var fl arguments.PlanFlags
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Show which calls apply will make and what they cost",
		Long: `Plan compares the configuration with the state and shows, for every search,
profile, enrich and export, what apply would do: run, rerun, refresh, read,
enrich, forget, write or nothing. It counts the calls and credits: exactly
where the state already knows the people, as an upper bound ("at most",
"up to") where it depends on results not fetched yet. Apply never spends
more than the plan says.

Plan makes one call, to read the remaining requests of the month (none with
--offline, or when only the second generation is configured), and refuses a
plan that could leave fewer than min_remaining_requests (counting the calls
that use the monthly quota: those of the first generation) or spend more than
max_credits. It warns when the plan's credits exceed the balance the last
enrichment reported (the service reports it only then). It never changes the
state.

--out FILE saves the plan; "leadsync apply FILE" then runs exactly it, and
refuses it once the state or the configuration has changed.

--markdown prints the plan as a pull-request comment: a summary line, a
table of the changes, diagnostics; long parts fold into <details>. With
--compare-to BASE.json (a plan --json made on the base branch) it adds the
difference in calls and credits, in total and per address.`,
		Example: `  leadsync plan
  leadsync plan --out leads.plan && leadsync apply leads.plan
  leadsync plan --target 'search.cto["Berlin"]' --replace search.cfo
  leadsync plan --json --detailed-exitcode --offline   # in CI: exit 2 when there is work
  leadsync plan --out leads.plan --markdown --compare-to base-plan.json > comment.md`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParsePlan, func(cmd *cobra.Command, a *arguments.Plan) error {
		return runPlan(cmd.Context(), f, a)
	})
	registerAddressCompletion(f, cmd)
	return cmd
}

// runPlan plans, shows the plan in the form asked for, saves it with
// --out, and sets the exit code.
func runPlan(ctx context.Context, f *Factory, a *arguments.Plan) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.PlanGC != nil {
		defer f.PlanGC()()
	}
	var base *plan.Plan
	if a.CompareTo != "" {
		var err error
		if base, err = loadBasePlan(f, a.CompareTo); err != nil {
			return err
		}
	}
	early := loadStateEarly(f)
	cfg, diags := loadConfig(f, a.Vars)
	if diags.HasErrors() {
		// With --json, Run prints the plan's schema (an empty plan) with
		// these diagnostics on stdout.
		writeDiagnostics(f, cfg, diags)
		return silentExit(ExitError)
	}
	out := run.PlanOut{Config: cfg, StatePath: stateFilePath(cfg), Dir: f.Dir, Path: a.Out}
	if a.Out != "" {
		// Before any call: a plan saved as the journal bricks the state.
		if err := out.Check(); err != nil {
			return err
		}
	}
	p, pdiags, err := makePlan(ctx, f, cfg, early, a)
	if err != nil {
		return err
	}
	if err := showPlanMade(f, cfg, a.View, p, base, diags, pdiags); err != nil {
		return err
	}
	if diags.HasErrors() || pdiags.HasErrors() {
		return silentExit(ExitError)
	}
	if a.Out != "" {
		if err := run.SavePlan(out, p); err != nil {
			return err
		}
		if a.View == arguments.ViewHuman {
			views.PlanSaved(f.IO.Out, a.Out)
		}
	}
	if a.DetailedExitcode && p.HasChanges() {
		return silentExit(ExitChanges)
	}
	return nil
}

// loadStateEarly starts loading the state at its default path (of the
// workspace in use) while the configuration is read; plan uses it only if
// the configuration names that path. nil when the configuration may name
// a backend: a local file left after state push would be read for nothing
// (time and memory). Opening the default backend reads nothing yet.
func loadStateEarly(f *Factory) *run.EarlyState {
	if mentionsBackend(f.Dir) || f.DefaultBackend != nil {
		return nil
	}
	opts := backend.Options{StatePath: filepath.Join(f.Dir, config.DefaultStatePath), Workspace: f.workspace(), Now: f.Now, Notify: f.note}
	_, b, err := backend.Open(nil, opts)
	if err != nil {
		return nil
	}
	return run.EarlyLoad(rescued(f, b))
}

// makePlan builds the plan of cfg on its state (early, when it was loaded
// from the same place) with one billing call unless --offline. A failed
// billing call is reported here, with the way around it.
func makePlan(ctx context.Context, f *Factory, cfg *config.Config, early *run.EarlyState, a *arguments.Plan) (*plan.Plan, hcl.Diagnostics, error) {
	deps, src, err := runDeps(f, cfg, 0)
	if err != nil {
		return nil, nil, err
	}
	defer src.close()
	deps.Backend = early.For(deps.Backend)
	p, diags, err := run.Plan(noteWaits(ctx, f), deps, run.PlanOptions{
		Config: cfg, Targets: a.Targets, Replace: a.Replace, Offline: a.Offline, TakeOver: a.TakeOver,
	})
	var be *run.BillingError
	if errors.As(err, &be) {
		return nil, nil, reportPlanBilling(f, be)
	}
	return p, diags, err
}

// reportPlanBilling prints a failed billing call of plan, and how to plan
// without it.
func reportPlanBilling(f *Factory, be *run.BillingError) error {
	const doing = "reading the remaining requests of this month"
	var ae *api.Error
	if errors.As(be.Err, &ae) {
		_ = reportAPIError(f, doing, be.Err) // prints the error and its hint
	} else {
		views.APIError(f.IO.ErrOut, doing, be.Err.Error(), "")
		f.failures.addMessage(fmt.Sprintf("%s: %v", doing, be.Err))
	}
	views.PlanOfflineHint(f.IO.ErrOut)
	f.failures.addMessage("to plan without checking the quota: leadsync plan --offline")
	return silentExit(ExitError)
}

// showPlanMade shows the plan p in the form asked for, with the
// diagnostics of the configuration (diags) and of the planning (pdiags);
// base is the plan a pull-request comment compares with.
func showPlanMade(f *Factory, cfg *config.Config, form arguments.ViewType, p, base *plan.Plan, diags, pdiags hcl.Diagnostics) error {
	all := append(append(hcl.Diagnostics{}, diags...), pdiags...)
	switch form {
	case arguments.ViewMarkdown:
		p.Diagnostics = plan.JSONDiagnostics(cfg.ScrubDiagnostics(all))
		if err := views.PlanMarkdown(f.IO.Out, p, base); err != nil {
			return err
		}
		if all.HasErrors() {
			writeDiagnostics(f, cfg, all)
		}
		return nil
	case arguments.ViewJSON:
		p.Diagnostics = plan.JSONDiagnostics(cfg.ScrubDiagnostics(all))
		return views.NewPlan(f.IO.Out, true, false).Plan(p)
	}
	if pdiags.HasErrors() && len(p.Changes) == 0 {
		writeDiagnostics(f, cfg, all) // no plan to draw: its errors say why
		return nil
	}
	if err := views.NewPlan(f.IO.Out, false, f.IO.ColorOut()).Plan(p); err != nil {
		return err
	}
	views.PlanCatalogNote(f.IO.Out, cfg)
	writeDiagnostics(f, cfg, append(diags, notDrawn(p, pdiags)...))
	return nil
}

// notDrawn are the diagnostics of planning that the drawn plan does not
// end with already. The plan ends with its own warnings (a credit balance
// that may not suffice): not twice. Warnings of the planning around it (an
// export record that cannot be read) are not in the plan, nor are errors.
func notDrawn(p *plan.Plan, pdiags hcl.Diagnostics) hcl.Diagnostics {
	shown := map[string]bool{}
	for _, d := range p.Diagnostics {
		if d.Severity == "warning" {
			shown[d.Summary] = true
		}
	}
	var rest hcl.Diagnostics
	for _, d := range pdiags {
		if d.Severity == hcl.DiagError || !shown[d.Summary] {
			rest = append(rest, d)
		}
	}
	return rest
}

// loadBasePlan reads the plan to compare with (--compare-to); path is
// relative to f.Dir.
func loadBasePlan(f *Factory, path string) (*plan.Plan, error) {
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(f.Dir, full)
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return nil, fmt.Errorf("reading the base plan %s: %w; make it with \"leadsync plan --json > %s\" on the base branch", path, planUnwrapPath(err), path)
	}
	return plan.DecodeBase(path, data)
}
