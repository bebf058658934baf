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
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"
)

// planOptions are the inputs of `leadsync plan`.
type planOptions struct {
	out              string
	json             bool
	markdown         bool
	compareTo        string
	detailedExitcode bool
	offline          bool
	targets          []string
	replace          []string
	vars             varFlags
}

func newPlanCmd(f *Factory) *cobra.Command {
	opts := &planOptions{}
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
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlan(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.out, "out", "", "save the plan to `FILE` for \"leadsync apply FILE\"")
	fl.BoolVar(&opts.json, "json", false, "print the plan as one JSON object")
	fl.BoolVar(&opts.markdown, "markdown", false, "print the plan as a pull-request comment (GitHub Markdown)")
	fl.StringVar(&opts.compareTo, "compare-to", "", "with --markdown: show the difference from the plan --json in `FILE` (the base branch's)")
	fl.BoolVar(&opts.detailedExitcode, "detailed-exitcode", false, "exit 2 when the plan has changes (0: none, 1: error)")
	fl.BoolVar(&opts.offline, "offline", false, "make no call: skip the check of the remaining requests")
	fl.StringArrayVar(&opts.targets, "target", nil, "plan only `ADDRESS` and what it reads (repeatable)")
	fl.StringArrayVar(&opts.replace, "replace", nil, "run search or read profile `ADDRESS` again even if up to date (repeatable)")
	opts.vars.register(cmd)
	registerAddressCompletion(f, cmd)
	return cmd
}

func runPlan(ctx context.Context, f *Factory, opts *planOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.markdown && opts.json {
		return errors.New("--markdown and --json cannot be used together: choose one form")
	}
	if opts.compareTo != "" && !opts.markdown {
		return errors.New("--compare-to needs --markdown: the difference is shown in the pull-request comment")
	}
	var base *plan.Plan
	if opts.compareTo != "" {
		var err error
		if base, err = loadBasePlan(f, opts.compareTo); err != nil {
			return err
		}
	}
	// The state usually lives at the default path (of the workspace in
	// use): load it while the configuration is read, and use it only if
	// the configuration names that path.
	var early *run.EarlyState
	if !mentionsBackend(f.Dir) && f.Getenv(envTestPGSchema) == "" {
		// Not when the configuration may name a backend: a local file
		// left after state push would be read for nothing (time and
		// memory). Opening the default backend reads nothing yet.
		opts := backend.Options{StatePath: filepath.Join(f.Dir, config.DefaultStatePath), Workspace: f.workspace(), Now: f.Now}
		if _, b, err := backend.Open(nil, opts); err == nil {
			early = run.EarlyLoad(b)
		}
	}
	cfg, diags := loadConfig(f, &opts.vars)
	if diags.HasErrors() {
		// With --json, Run prints the plan's schema (an empty plan) with
		// these diagnostics on stdout.
		writeDiagnostics(f, cfg, diags)
		return silentExit(ExitError)
	}
	out := run.PlanOut{Config: cfg, StatePath: stateFilePath(cfg), Dir: f.Dir, Path: opts.out}
	if opts.out != "" {
		// Before any call: a plan saved as the journal bricks the state.
		if err := out.Check(); err != nil {
			return err
		}
	}
	deps, src, err := runDeps(f, cfg)
	if err != nil {
		return err
	}
	defer src.close()
	deps.Backend = early.For(deps.Backend)
	p, pdiags, err := run.Plan(noteWaits(ctx, f), deps, run.PlanOptions{
		Config: cfg, Targets: opts.targets, Replace: opts.replace, Offline: opts.offline,
	})
	var be *run.BillingError
	if errors.As(err, &be) {
		const doing = "reading the remaining requests of this month"
		var ae *api.Error
		if errors.As(be.Err, &ae) {
			_ = reportAPIError(f, doing, be.Err) // prints the error and its hint
		} else {
			fmt.Fprintf(f.IO.ErrOut, "Error: %s: %v\n", doing, be.Err)
		}
		fmt.Fprintln(f.IO.ErrOut, "\nTo plan without checking the quota: leadsync plan --offline")
		if !errors.As(be.Err, &ae) {
			f.failures.addMessage(fmt.Sprintf("%s: %v", doing, be.Err))
		}
		f.failures.addMessage("to plan without checking the quota: leadsync plan --offline")
		return silentExit(ExitError)
	}
	if err != nil {
		return err
	}
	all := append(diags, pdiags...)
	view := views.NewPlan(f.IO.Out, opts.json, f.IO.ColorOut())
	if opts.markdown {
		p.Diagnostics = plan.JSONDiagnostics(cfg.ScrubDiagnostics(all))
		if err := views.PlanMarkdown(f.IO.Out, p, base); err != nil {
			return err
		}
		if all.HasErrors() {
			writeDiagnostics(f, cfg, all)
		}
	} else if opts.json {
		p.Diagnostics = plan.JSONDiagnostics(cfg.ScrubDiagnostics(all))
		if err := view.Plan(p); err != nil {
			return err
		}
	} else {
		rest := all
		if !pdiags.HasErrors() || len(p.Changes) > 0 {
			if err := view.Plan(p); err != nil {
				return err
			}
			if note := liveCatalogNote(cfg); note != "" {
				fmt.Fprintln(f.IO.Out, note)
			}
			// The plan drawn above ends with its own warnings (a credit
			// balance that may not suffice): not twice. Warnings of the
			// planning around it (an export record that cannot be read)
			// are not in the plan: they are shown here.
			shown := map[string]bool{}
			for _, d := range p.Diagnostics {
				if d.Severity == "warning" {
					shown[d.Summary] = true
				}
			}
			rest = append(hcl.Diagnostics{}, diags...)
			for _, d := range pdiags {
				if d.Severity == hcl.DiagError || !shown[d.Summary] {
					rest = append(rest, d)
				}
			}
		}
		writeDiagnostics(f, cfg, rest)
	}
	if all.HasErrors() {
		return silentExit(ExitError)
	}
	if opts.out != "" {
		if err := run.SavePlan(out, p); err != nil {
			return err
		}
		if !opts.json && !opts.markdown {
			fmt.Fprintf(f.IO.Out, "\nSaved the plan to %s. To run exactly this plan: leadsync apply %s\n", opts.out, opts.out)
		}
	}
	if opts.detailedExitcode && p.HasChanges() {
		return silentExit(ExitChanges)
	}
	return nil
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
