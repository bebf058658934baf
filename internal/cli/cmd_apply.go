package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

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

func newApplyCmd(f *Factory) *cobra.Command {
	var fl arguments.ApplyFlags
	cmd := &cobra.Command{
		Use:   "apply [PLANFILE]",
		Short: "Make the planned calls at the rate limit and write the spreadsheets",
		Long: `Apply plans (or takes a saved plan), asks for confirmation, then makes the
calls at the service's rate limit. Every completed call is recorded durably
(the local state's journal, synced to disk, or a transaction of the
PostgreSQL backend) before its result is used; an interrupted or killed
apply resumes where it stopped, repeating no completed call.

The first Ctrl-C stops starting calls and waits for those in flight; the
second exits at once (every finished call is already recorded; the calls
in flight are abandoned, named, and may have been charged).

Exit codes: 0 success; 1 when anything failed or the run was stopped.`,
		Example: `  leadsync apply
  leadsync apply --auto-approve
  leadsync plan --out leads.plan && leadsync apply leads.plan
  leadsync apply --target 'search.cto["Berlin"]' --replace search.cfo
  leadsync apply --auto-approve --json > apply-log.jsonl
  leadsync apply --lock-timeout 5m   # wait for a teammate's apply to finish`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseApply, func(cmd *cobra.Command, a *arguments.Apply) error {
		return runApply(cmd.Context(), f, a)
	})
	registerAddressCompletion(f, cmd)
	return cmd
}

func runApply(ctx context.Context, f *Factory, a *arguments.Apply) error {
	cfg, diags := loadConfig(f, a.Vars)
	if diags.HasErrors() {
		writeDiagnostics(f, cfg, diags)
		return silentExit(ExitError)
	}
	if len(diags) > 0 {
		writeDiagnostics(f, cfg, diags)
	}
	if a.Parallelism > 0 {
		// --parallelism is api.parallelism for this run: the pacer's
		// ceiling, the HTTP pool, the plan's totals and the engine's
		// workers all read this one value.
		cfg.API.Parallelism = a.Parallelism
	}

	planFile := a.PlanFile
	if wd, _ := os.Getwd(); planFile != "" && !filepath.IsAbs(planFile) && f.Dir != wd {
		// Relative to the working directory after --chdir, like every
		// other path the commands take.
		planFile = filepath.Join(f.Dir, planFile)
	}
	deps, src, err := runDeps(f, cfg, a.LockTimeout)
	if err != nil {
		return err
	}
	defer src.close()
	err = run.Apply(noteWaits(ctx, f), deps, run.ApplyOptions{
		Config:      cfg,
		PlanFile:    planFile,
		Targets:     a.Targets,
		Replace:     a.Replace,
		AutoApprove: a.AutoApprove,
		TakeOver:    a.TakeOver,
		Confirm:     func() (bool, error) { return confirm(f) },
		Warn:        func(msg string) { warn(f, msg) },
	}, applyView(f, cfg, diags, a.View == arguments.ViewJSON))
	var de *run.DiagnosticsError
	var be *run.BillingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &de):
		writeDiagnostics(f, cfg, de.Diags)
		return silentExit(ExitError)
	case errors.As(err, &be):
		return reportAPIError(f, "reading the remaining requests before planning", be.Err)
	case errors.Is(err, run.ErrCancelled):
		views.ApplyCancelled(f.IO.Out)
		return silentExit(ExitError)
	case errors.Is(err, run.ErrSheetsSkipped):
		views.SheetsSkipped(f.IO.ErrOut)
		return silentExit(ExitError)
	case errors.Is(err, run.ErrAborted):
		views.ApplyAborted(f.IO.ErrOut, deps.Backend.Describe())
		return silentExit(ExitError)
	case errors.Is(err, run.ErrFailed):
		return silentExit(ExitError)
	}
	return err
}

// applyView is the view of apply: with --json, one that carries the
// configuration's warnings (diags, shown on stderr too) in apply_start.
func applyView(f *Factory, cfg *config.Config, diags hcl.Diagnostics, asJSON bool) views.Apply {
	if asJSON {
		return views.NewApplyJSON(viewStreams(f), plan.JSONDiagnostics(cfg.ScrubDiagnostics(diags)))
	}
	return views.NewApply(viewStreams(f), false)
}

// runDeps is the world of an operation on cfg: its state backend (whose
// Lock waits up to lockTimeout, --lock-timeout), the service it names, the
// clock and the interrupts. The caller closes the source.
func runDeps(f *Factory, cfg *config.Config, lockTimeout time.Duration) (run.Deps, *stateSource, error) {
	src, err := openSource(f, cfg)
	if err != nil {
		return run.Deps{}, nil, err
	}
	d := stateDeps(f, src, lockTimeout)
	d.Service = func() (api.Service, error) { return f.service(cfg) }
	d.Account = accountID(f, cfg)
	return d, src, nil
}

// stateDeps is the world of an operation on the state of src alone (no
// service): its backend, whose Lock waits up to lockTimeout
// (--lock-timeout), the clock and the interrupts.
func stateDeps(f *Factory, src *stateSource, lockTimeout time.Duration) run.Deps {
	var b backend.Backend = src.backend
	if lockTimeout > 0 {
		b = waitingBackend{Backend: b, timeout: lockTimeout}
	}
	return run.Deps{Backend: b, Now: f.Now, Interrupt: f.Interrupt, Exists: src.exists}
}

// waitingBackend is a backend whose Lock waits for a holder to finish, up
// to timeout.
type waitingBackend struct {
	backend.Backend
	timeout time.Duration
}

func (w waitingBackend) Lock(op string) (backend.Unlocker, error) {
	return w.Backend.LockWait(context.Background(), op, w.timeout)
}

// Unwrap is the backend that waits: its abilities stay visible.
func (w waitingBackend) Unwrap() backend.Backend { return w.Backend }

// viewStreams are f's streams as a view sees them.
func viewStreams(f *Factory) views.Streams {
	return views.Streams{Out: f.IO.Out, ErrOut: f.IO.ErrOut, ErrTTY: f.IO.ErrTTY,
		ColorOut: f.IO.ColorOut(), ColorErr: f.IO.ColorErr(), Now: f.Now}
}

// confirm asks for "yes" like Terraform.
func confirm(f *Factory) (bool, error) {
	return askYes(f, "Do you want to perform these actions?\n  leadsync will make the calls above and spend the credits shown.", "apply")
}

// askYes asks question on Out as Terraform does and reads the answer: only
// "yes" approves. cmd names the command in the error of a closed input.
func askYes(f *Factory, question, cmd string) (bool, error) {
	views.Confirm(f.IO.Out, question)
	line, err := bufio.NewReader(f.IO.In).ReadString('\n')
	if err != nil && line == "" {
		return false, fmt.Errorf("no answer to the confirmation prompt (standard input closed); use --auto-approve to %s without asking", cmd)
	}
	return strings.TrimSpace(line) == "yes", nil
}

// warn prints a warning that stops nothing as one line on stderr.
func warn(f *Factory, msg string) {
	views.Warning(f.IO.ErrOut, msg)
}
