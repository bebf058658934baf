package run

import (
	"context"
	"fmt"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// ApplyView is what an apply shows. Its human form draws the plan, a
// progress printer on stderr and the files written; its JSON form streams
// progress lines and shows nothing else.
type ApplyView interface {
	// Plan shows the plan about to be applied, before confirmation (not
	// called for a saved plan, which was shown when it was made).
	Plan(p *plan.Plan)
	// Progress returns the printer of the run's events. stop acts as a
	// first interrupt: a printer whose reader went away calls it so that
	// nothing more is spent for output nobody reads.
	Progress(stop func()) engine.Progress
	// Interrupted says that the first interrupt was received.
	Interrupted()
	// Exports shows the files written (and their warnings).
	Exports(cfg *config.Config, written []export.Written)
	// Done is called once when Apply returns, with its error: the JSON
	// form ends its stream with the summary and the files written.
	Done(err error)
}

// ApplyOptions are the inputs of one apply.
type ApplyOptions struct {
	Config *config.Config
	// PlanFile is a saved plan to run exactly; "" plans now.
	PlanFile string
	// Targets and Replace are --target and --replace (not with PlanFile).
	Targets []string
	Replace []string
	// AutoApprove skips Confirm.
	AutoApprove bool
	// Confirm asks for approval of the plan just shown; false cancels.
	Confirm func() (bool, error)
	// Parallelism bounds the calls in flight; api.parallelism when 0.
	Parallelism int
	// Warn shows a warning that stops nothing (one line): the working
	// copy's export record could not be read or written. Nil drops them.
	Warn func(string)
}

// Apply runs one apply: lock, load, billing, plan (or the saved plan,
// checked against the state), confirmation, journal, execution with
// interrupts, commit and exports. Its errors are described in doc.go.
func Apply(ctx context.Context, d Deps, opts ApplyOptions, view ApplyView) (err error) {
	defer func() { view.Done(err) }()
	return apply(ctx, d, opts, view)
}

func apply(ctx context.Context, d Deps, opts ApplyOptions, view ApplyView) error {
	cfg := opts.Config
	lock, err := d.Backend.Lock("apply")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	st, err := d.Backend.Load()
	if err != nil {
		return err
	}

	svc, err := d.Service()
	if err != nil {
		return err
	}

	log := openExportLog(cfg, opts.Warn)
	var (
		p     *plan.Plan
		usage *api.Usage
		bs    *plan.BudgetState
		led   backend.Ledger
	)
	defer func() { closeLedger(led) }()
	if opts.PlanFile != "" {
		p, err = plan.Load(opts.PlanFile)
		if err != nil {
			return err
		}
		if err := p.Stale(cfg, st); err != nil {
			return err
		}
		if !p.HasChanges() {
			// As a plain apply with nothing to do: say so, make no call.
			view.Plan(p)
			return nil
		}
		bs, led = budgetStateIn(d, cfg, st, nil, p.Budget)
		if err := checkSavedBudget(cfg, p, bs); err != nil {
			return err
		}
	} else {
		popts := plan.Options{Now: d.now(), Targets: opts.Targets, Replace: opts.Replace, ExportRecord: log.lookup, Reuse: reuseLookup(d.Backend)}
		// An unknown target costs no call: Build reports it.
		addrErr := plan.CheckAddresses(cfg, st, opts.Targets, opts.Replace).HasErrors()
		if HasBilling(cfg) && !addrErr {
			u, err := svc.Billing(ctx)
			if err != nil {
				return &BillingError{Err: err}
			}
			popts.Usage, usage = u, u
		}
		bs, led = budgetState(d, cfg, st, usage)
		popts.Budget = bs
		var diags hcl.Diagnostics
		p, diags = plan.Build(cfg, st, popts)
		view.Plan(p)
		if diags.HasErrors() {
			return &DiagnosticsError{Diags: diags}
		}
		if !p.HasChanges() {
			return nil
		}
		if err := budgetUnchecked(cfg, bs); err != nil {
			return err
		}
		if !opts.AutoApprove {
			ok, err := opts.Confirm()
			if err != nil {
				return err
			}
			if !ok {
				return ErrCancelled
			}
		}
	}

	// A plan that only writes spreadsheets (their configuration changed,
	// or the state did since they were written) changes no state: nothing
	// is journalled or committed, so the serial stays and the other
	// spreadsheets stay up to date. Any other plan commits the state, and
	// every spreadsheet is written from it.
	commit := changesState(p)
	var journal engine.Journal = noCalls{}
	var closeJournal func() error
	if commit {
		if usage != nil {
			// Kept in state (saved with the run) for show and the Summary sheet.
			if err := st.Fold(state.Event{At: d.now(), Kind: state.EventBilling, Billing: usage}); err != nil {
				return err
			}
		}
		j, err := d.Backend.OpenJournal(st)
		if err != nil {
			return err
		}
		journal, closeJournal = j, j.Close
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := make(chan struct{})
	unwatch, stopNow := watchInterrupts(d.Interrupt, stop, cancel, view.Interrupted)
	defer unwatch()
	// A closed standard output must not kill a run that is spending money:
	// with SIGPIPE ignored, writes fail instead, and the run stops cleanly.
	signal.Ignore(syscall.SIGPIPE)

	sum, runErr := engine.Run(runCtx, engine.Options{
		Config:      cfg,
		Plan:        p,
		State:       st,
		Journal:     journal,
		Service:     svc,
		Now:         d.clock(),
		Parallelism: opts.Parallelism,
		Stop:        stop,
		Progress:    view.Progress(stopNow),
		Reuse:       reuseLookup(d.Backend),
		Budget:      engineBudget(cfg, bs, led),
	})
	if closeJournal != nil {
		if cerr := closeJournal(); cerr != nil && runErr == nil {
			runErr = cerr
		}
	}
	exports := plannedExports(cfg, p)
	if runCtx.Err() != nil && ctx.Err() == nil {
		// Second interrupt: exit at once; every finished call is recorded.
		return unwritten(cfg, exports, nil, ErrAborted)
	}
	if commit {
		if err := d.Backend.Commit(st); err != nil {
			return unwritten(cfg, exports, nil, fmt.Errorf("saving state (every call recorded so far is kept with the %s, and the next command folds it in): %w", d.Backend.Describe(), err))
		}
		// After the commit: the record names the state as committed.
		exports = cfg.Exports
	}
	if runErr != nil {
		return unwritten(cfg, exports, nil, runErr)
	}
	if len(exports) > 0 {
		written, err := writeExports(cfg, exports, st, export.Options{Now: d.clock(),
			Stats: &export.RunStats{CreditsSpent: sum.Credits, CreditsUnknown: sum.CreditsUnknown}}, d.clock(), log)
		view.Exports(cfg, written)
		if err != nil {
			return unwritten(cfg, exports, written, fmt.Errorf("writing the spreadsheets (state is saved; run leadsync export to try again): %w", err))
		}
	}
	if sum.Failed() {
		return ErrFailed
	}
	return nil
}

// UnwrittenError is the error of an apply that stopped before every
// spreadsheet it was to write was written: Err says why (the cause, a
// sentinel like ErrAborted among them), Files which were not written.
type UnwrittenError struct {
	Err   error
	Files []UnwrittenFile
}

// UnwrittenFile is a spreadsheet an apply was to write and did not.
type UnwrittenFile struct {
	Export string // export block address
	Path   string // the configuration folder joined to the export's path
}

func (e *UnwrittenError) Error() string { return e.Err.Error() }
func (e *UnwrittenError) Unwrap() error { return e.Err }

// unwritten returns err, with the files of xs not among written when
// there are any (a failed export may have written some of its files).
func unwritten(cfg *config.Config, xs []*config.Export, written []export.Written, err error) error {
	done := map[string]bool{}
	for _, w := range written {
		done[filepath.Clean(w.Path)] = true
	}
	var files []UnwrittenFile
	for _, x := range xs {
		data, summary := x.Files()
		if summary != "" {
			data = append(data, summary)
		}
		for _, f := range data {
			if !filepath.IsAbs(f) && cfg.Dir != "" {
				f = filepath.Join(cfg.Dir, f)
			}
			if f = filepath.Clean(f); !done[f] {
				files = append(files, UnwrittenFile{Export: x.Address, Path: f})
			}
		}
	}
	if len(files) == 0 {
		return err
	}
	return &UnwrittenError{Err: err, Files: files}
}
