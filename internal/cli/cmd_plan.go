package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

// planOptions are the inputs of `leadsync plan`.
type planOptions struct {
	out              string
	json             bool
	detailedExitcode bool
	offline          bool
	targets          []string
	replace          []string
	vars             varFlags
}

// planBilling makes the one billing call of a plan; tests replace it.
var planBilling = serviceUsage

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
plan that could leave fewer than min_remaining_requests or spend more than
max_credits. It never changes the state.

--out FILE saves the plan; "leadsync apply FILE" then runs exactly it, and
refuses it once the state or the configuration has changed.`,
		Example: `  leadsync plan
  leadsync plan --out leads.plan && leadsync apply leads.plan
  leadsync plan --target 'search.cto["Berlin"]' --replace search.cfo
  leadsync plan --json --detailed-exitcode --offline   # in CI: exit 2 when there is work`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlan(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.out, "out", "", "save the plan to `FILE` for \"leadsync apply FILE\"")
	fl.BoolVar(&opts.json, "json", false, "print the plan as one JSON object")
	fl.BoolVar(&opts.detailedExitcode, "detailed-exitcode", false, "exit 2 when the plan has changes (0: none, 1: error)")
	fl.BoolVar(&opts.offline, "offline", false, "make no call: skip the check of the remaining requests")
	fl.StringArrayVar(&opts.targets, "target", nil, "plan only `ADDRESS` and what it reads (repeatable)")
	fl.StringArrayVar(&opts.replace, "replace", nil, "run search or read profile `ADDRESS` again even if up to date (repeatable)")
	opts.vars.register(cmd)
	return cmd
}

// hasUsageEndpoint reports whether cfg can reach the first generation's
// billing operation (the second generation has none).
func hasUsageEndpoint(cfg *config.Config) bool {
	return cfg.API.Sandbox || cfg.API.BaseURL != ""
}

func runPlan(ctx context.Context, f *Factory, opts *planOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	// The state usually lives at the default path: load it while the
	// configuration is read (on large states the two take about as long),
	// and use it only if the configuration names that path. plan takes no
	// lock and writes nothing, so reading early is safe.
	type loaded struct {
		st  *state.State
		err error
	}
	guess := filepath.Join(f.Dir, config.DefaultStatePath)
	early := make(chan loaded, 1)
	go func() {
		st, err := state.NewStore(guess).Load()
		early <- loaded{st, err}
	}()
	cfg, diags := loadConfig(f, &opts.vars)
	if diags.HasErrors() {
		if opts.json {
			writeDiagnosticsJSON(f.IO.Out, diags, cfg)
		} else {
			writeDiagnostics(f, cfg, diags)
		}
		return silentExit(ExitError)
	}
	var st *state.State
	var err error
	if path := stateFilePath(cfg); path == guess {
		l := <-early
		st, err = l.st, l.err
	} else {
		st, err = state.NewStore(path).Load()
	}
	if err != nil {
		return err
	}
	var usage *api.Usage
	if !opts.offline && hasUsageEndpoint(cfg) {
		if usage, err = planBilling(ctx, f, cfg); err != nil {
			const doing = "reading the remaining requests of this month"
			var ae *api.Error
			if errors.As(err, &ae) {
				_ = reportAPIError(f, doing, err) // prints the error and its hint
			} else {
				fmt.Fprintf(f.IO.ErrOut, "Error: %s: %v\n", doing, err)
			}
			fmt.Fprintln(f.IO.ErrOut, "\nTo plan without checking the quota: leadsync plan --offline")
			return silentExit(ExitError)
		}
	}
	p, pdiags := plan.Build(cfg, st, plan.Options{
		Now: f.Now(), Targets: opts.targets, Replace: opts.replace, Usage: usage, Offline: opts.offline,
	})
	all := append(diags, pdiags...)
	if opts.json {
		p.Diagnostics = plan.JSONDiagnostics(cfg.ScrubDiagnostics(all))
		if err := plan.RenderJSON(f.IO.Out, p); err != nil {
			return err
		}
	} else {
		if !pdiags.HasErrors() || len(p.Changes) > 0 {
			if err := plan.RenderText(f.IO.Out, p, f.IO.ColorOut()); err != nil {
				return err
			}
			if note := liveCatalogNote(cfg); note != "" {
				fmt.Fprintln(f.IO.Out, note)
			}
		}
		writeDiagnostics(f, cfg, all)
	}
	if all.HasErrors() {
		return silentExit(ExitError)
	}
	if opts.out != "" {
		path := opts.out
		if !filepath.IsAbs(path) {
			path = filepath.Join(f.Dir, path)
		}
		if err := plan.Save(path, p); err != nil {
			return err
		}
		if !opts.json {
			fmt.Fprintf(f.IO.Out, "\nSaved the plan to %s. To run exactly this plan: leadsync apply %s\n", opts.out, opts.out)
		}
	}
	if opts.detailedExitcode && p.HasChanges() {
		return silentExit(ExitChanges)
	}
	return nil
}

// serviceUsage makes the billing call through the configured service.
func serviceUsage(ctx context.Context, f *Factory, cfg *config.Config) (*api.Usage, error) {
	svc, err := newServiceClient(f, cfg)
	if err != nil {
		return nil, err
	}
	return svc.Billing(ctx)
}
