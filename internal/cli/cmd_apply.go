package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/exec"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

type applyOptions struct {
	vars        varFlags
	planFile    string
	autoApprove bool
	targets     []string
	replace     []string
	json        bool
	parallelism int
}

func newApplyCmd(f *Factory) *cobra.Command {
	opts := &applyOptions{}
	cmd := &cobra.Command{
		Use:   "apply [PLANFILE]",
		Short: "Make the planned calls at the rate limit and write the spreadsheets",
		Long: `Apply plans (or takes a saved plan), asks for confirmation, then makes the
calls at the service's rate limit. Every completed call is recorded in the
state journal, synced to disk, before its result is used; an interrupted or
killed apply resumes where it stopped, repeating no completed call.

The first Ctrl-C stops starting calls and waits for those in flight; the
second exits at once (every finished call is already in the journal).

Exit codes: 0 success; 1 when anything failed or the run was stopped.`,
		Example: `  leadsync apply
  leadsync apply --auto-approve
  leadsync plan --out leads.plan && leadsync apply leads.plan
  leadsync apply --target 'search.cto["Berlin"]' --replace search.cfo
  leadsync apply --auto-approve --json > apply-log.jsonl`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.planFile = args[0]
			}
			if cmd.Flags().Changed("parallelism") && opts.parallelism < 1 {
				return fmt.Errorf("--parallelism must be at least 1, got %d", opts.parallelism)
			}
			return runApply(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	opts.vars.register(cmd)
	fl.BoolVar(&opts.autoApprove, "auto-approve", false, "skip the confirmation prompt")
	fl.StringArrayVar(&opts.targets, "target", nil, "limit the run to `ADDRESS` and what it depends on (repeatable)")
	fl.StringArrayVar(&opts.replace, "replace", nil, "run `ADDRESS` again even if state has it (repeatable)")
	fl.BoolVar(&opts.json, "json", false, "stream progress as JSON lines (requires --auto-approve or a plan file)")
	fl.IntVar(&opts.parallelism, "parallelism", 0, "calls in flight at once (default: api.parallelism)")
	return cmd
}

func runApply(ctx context.Context, f *Factory, opts *applyOptions) error {
	if opts.planFile != "" && (len(opts.targets) > 0 || len(opts.replace) > 0) {
		return errors.New("--target and --replace cannot be used with a saved plan: they were fixed when the plan was made")
	}
	if opts.json && !opts.autoApprove && opts.planFile == "" {
		return errors.New("--json needs --auto-approve or a saved plan: a JSON stream cannot ask for confirmation")
	}
	cfg, diags := loadConfig(f, &opts.vars)
	if diags.HasErrors() {
		writeDiagnostics(f, cfg, diags)
		return silentExit(ExitError)
	}
	if len(diags) > 0 {
		writeDiagnostics(f, cfg, diags)
	}

	store := state.NewStore(stateFilePath(cfg))
	lock, err := store.Lock("apply")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	st, err := store.Load()
	if err != nil {
		return err
	}

	svc, err := newServiceClient(f, cfg)
	if err != nil {
		return err
	}

	var p *plan.Plan
	if opts.planFile != "" {
		p, err = plan.Load(opts.planFile)
		if err != nil {
			return err
		}
		if err := p.Stale(cfg, st); err != nil {
			return err
		}
	} else {
		popts := plan.Options{Now: f.Now(), Targets: opts.targets, Replace: opts.replace}
		if hasBilling(cfg) {
			u, err := svc.Billing(ctx)
			if err != nil {
				return reportAPIError(f, "reading the remaining requests before planning", err)
			}
			popts.Usage = u
			// Kept in state (saved with the run) for show and the Summary sheet.
			if err := st.Apply(state.Event{At: f.Now(), Kind: state.EventBilling, Billing: u}); err != nil {
				return err
			}
		}
		var pdiags hcl.Diagnostics
		p, pdiags = plan.Build(cfg, st, popts)
		if !opts.json {
			plan.RenderText(f.IO.Out, p, f.IO.ColorOut())
		}
		if pdiags.HasErrors() {
			writeDiagnostics(f, cfg, pdiags)
			return silentExit(ExitError)
		}
		if !p.HasChanges() {
			return writeExports(f, cfg, st, nil, opts.json, true)
		}
		if !opts.autoApprove {
			ok, err := confirm(f)
			if err != nil {
				return err
			}
			if !ok {
				fmt.Fprintln(f.IO.Out, "\nApply cancelled.")
				return silentExit(ExitError)
			}
		}
	}

	j, err := store.OpenJournal(st)
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := make(chan struct{})
	stopSignals, stopNow := watchInterrupts(f, stop, cancel)
	defer stopSignals()
	// A closed standard output must not kill a run that is spending money:
	// with SIGPIPE ignored, writes fail instead, and the run stops cleanly.
	signal.Ignore(syscall.SIGPIPE)
	progress := newProgress(f, opts.json)
	if opts.json {
		// A reader that goes away (apply --json | head) stops the run like
		// a first Ctrl-C: nothing more is spent for output nobody reads.
		progress = newProgress(&Factory{IO: &IOStreams{Out: &brokenPipeWriter{w: f.IO.Out, onBroken: stopNow}}, Now: f.Now}, true)
	}

	sum, runErr := exec.Run(runCtx, exec.Options{
		Config:      cfg,
		Plan:        p,
		State:       st,
		Journal:     j,
		Service:     svc,
		Now:         f.Now,
		Parallelism: opts.parallelism,
		Stop:        stop,
		Progress:    progress,
	})
	if cerr := j.Close(); cerr != nil && runErr == nil {
		runErr = cerr
	}
	if runCtx.Err() != nil && ctx.Err() == nil {
		// Second interrupt: exit at once; the journal holds every finished call.
		fmt.Fprintln(f.IO.ErrOut, "Aborted. Every finished call is in the journal; the next command folds it into the state.")
		return silentExit(ExitError)
	}
	if err := store.Commit(st); err != nil {
		return fmt.Errorf("saving state (the journal holds every result that could be written; the next command folds it in): %w", err)
	}
	if runErr != nil {
		return runErr
	}
	if err := writeExports(f, cfg, st, &export.RunStats{CreditsSpent: sum.Credits}, opts.json, false); err != nil {
		return err
	}
	if sum.Failed() {
		return silentExit(ExitError)
	}
	return nil
}

// hasBilling reports whether the configuration reaches a first-generation
// endpoint, where the remaining requests can be read.
func hasBilling(cfg *config.Config) bool {
	return cfg.API.Sandbox || cfg.API.BaseURL != ""
}

// writeExports writes every export from state. With onlyMissing, only when
// some export file does not exist yet.
func writeExports(f *Factory, cfg *config.Config, st *state.State, stats *export.RunStats, quiet, onlyMissing bool) error {
	if len(cfg.Exports) == 0 {
		return nil
	}
	if onlyMissing {
		missing := false
		for _, e := range cfg.Exports {
			data, summary := e.Files()
			for _, p := range append(data, summary) {
				if p == "" {
					continue
				}
				if !filepath.IsAbs(p) {
					p = filepath.Join(cfg.Dir, p)
				}
				if _, err := os.Stat(p); err != nil {
					missing = true
				}
			}
		}
		if !missing {
			return nil
		}
	}
	written, err := export.WriteAll(cfg, st, export.Options{Now: f.Now, Stats: stats})
	if !quiet {
		for _, w := range written {
			fmt.Fprintf(f.IO.Out, "Wrote %s.\n", describeWritten(cfg, w))
			for _, warn := range w.Warnings {
				fmt.Fprintf(f.IO.ErrOut, "Warning: %s\n", warn)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("writing the spreadsheets (state is saved; run leadsync export to try again): %w", err)
	}
	return nil
}

// confirm asks for "yes" like Terraform.
func confirm(f *Factory) (bool, error) {
	fmt.Fprint(f.IO.Out, "\nDo you want to perform these actions?\n  leadsync will make the calls above and spend the credits shown.\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ")
	line, err := bufio.NewReader(f.IO.In).ReadString('\n')
	if err != nil && line == "" {
		return false, errors.New("no answer to the confirmation prompt (standard input closed); use --auto-approve to apply without asking")
	}
	return strings.TrimSpace(line) == "yes", nil
}

// watchInterrupts closes stop on the first interrupt and calls cancel on the
// second. It returns a function that stops watching, and one that acts as a
// first interrupt (safe to call more than once, and after an interrupt).
func watchInterrupts(f *Factory, stop chan struct{}, cancel context.CancelFunc) (unwatch, stopNow func()) {
	var once sync.Once
	stopNow = func() { once.Do(func() { close(stop) }) }
	sig := f.Interrupt
	var ch chan os.Signal
	if sig == nil {
		ch = make(chan os.Signal, 2)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		sig = ch
	}
	done := make(chan struct{})
	go func() {
		n := 0
		for {
			select {
			case <-done:
				return
			case <-sig:
				n++
				if n == 1 {
					fmt.Fprintln(f.IO.ErrOut, "\nInterrupt received: no new calls will start; waiting for the calls in flight. Press Ctrl-C again to exit at once.")
					stopNow()
				} else {
					cancel()
					return
				}
			}
		}
	}()
	unwatch = func() {
		close(done)
		if ch != nil {
			signal.Stop(ch)
		}
	}
	return unwatch, stopNow
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
