package run

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"path/filepath"
	"slices"
	"sync"
	"syscall"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/kind"
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
	// WritingAfterStop says, after a first interrupt, that n spreadsheets
	// are written before the apply ends (a second interrupt skips them).
	WritingAfterStop(n int)
	// Folded says that the state was committed with events an
	// interrupted command had recorded (calls, removals, moves) and no
	// write had folded in yet (events > 0).
	Folded(events int)
	// Exports shows the files written (and their warnings).
	Exports(cfg *config.Config, written []export.Written)
	// Done is called once when Apply returns, with its error: the JSON
	// form ends its stream with the summary and the files written.
	Done(err error)
}

// ApplyOptions are the inputs of one apply.
type ApplyOptions struct {
	Config *config.Config
	// TakeOver is --take-over: a workspace filled by another configuration
	// becomes this one's.
	TakeOver bool
	// PlanFile is a saved plan to run exactly; "" plans now.
	PlanFile string
	// Targets and Replace are --target and --replace (not with PlanFile).
	Targets []string
	Replace []string
	// AutoApprove skips Confirm.
	AutoApprove bool
	// Confirm asks for approval of the plan just shown; false cancels.
	Confirm func() (bool, error)
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
	if err := checkAddressesFirst(d, opts); err != nil {
		return err
	}
	lock, err := d.Backend.Lock("apply")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	// Built, and the billing call made, while the state is read: decided
	// on the workspace's row when the backend reads it alone, else on the
	// records.
	ahead := startService(ctx, d)
	defer ahead.stop()
	ahead.billOnRow(d, opts)
	in, err := applyState(d, opts, func(records *state.State) { ahead.billIfSure(d, opts, records) })
	if err != nil {
		return err
	}
	// applyPlan may load the state whole instead: release the one in use.
	defer func() { in.release() }()
	defer func() { in.restoreGC() }()
	service := ServiceOf(opts.Config, d.Account)
	if err := checkService(in.st, service); err != nil {
		return err
	}
	if err := checkConfiguration(in.st, opts.Config.Identity(), opts.TakeOver); err != nil {
		return err
	}
	svc, err := ahead.service()
	if err != nil {
		return err
	}
	log := openExportLog(opts.Config, opts.Warn)
	var budget applyBudget
	defer func() { settleLedger(budget.led) }()
	p, usage, err := applyPlan(ctx, d, opts, view, in, ahead, log, &budget)
	if err != nil {
		return err
	}
	st := in.st
	if p == nil {
		in.release()
		if err := foldUnfolded(d, st, view); err != nil {
			return err
		}
		return takeOver(d, opts, st)
	}
	recordService(st, service, opts.Warn)
	noteTakeOver(st, opts)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := make(chan struct{})
	// Watched until the apply returns: an interrupt while the state is
	// committed or the spreadsheets written is noted, never fatal.
	unwatch, stopNow, skipOnNext := watchInterrupts(d.Interrupt, stop, cancel, view.Interrupted)
	defer unwatch()
	// A closed standard output must not kill a run that is spending money:
	// with SIGPIPE ignored, writes fail instead, and the run stops cleanly.
	signal.Ignore(syscall.SIGPIPE)
	r, err := execute(runCtx, d, opts, st, svc, p, usage, engineControl{stop: stop, progress: view.Progress(stopNow), budget: budget, colleagues: in.colleagues, facts: in.facts})
	if err != nil {
		return err
	}
	r.aborted = runCtx.Err() != nil && ctx.Err() == nil
	r.stopped = closed(stop)
	r.skipOnNext = skipOnNext
	// Every call is folded in: a partial state reads no more people, its
	// snapshot ends before the commit.
	in.release()
	return finish(runCtx, d, opts.Config, st, p, r, view, log)
}

// applyState is the state an apply plans and runs on, and what ends the
// snapshot it reads from (before a commit; a second call does nothing).
// A plan that reads no person in bulk (plan.ReadsOf: searches, profile
// reads, tracks, imports and exports, no enrich, moved block or
// retention: Reads.Foldable) runs on a partial state when the
// backend keeps its people in a store (state.Base.Writable): the
// records, the lead lists of the searches it plans and of its tracks'
// sources, the people it names and those its tracks read before
// (writableReading), then, as each call is folded in, the people the
// call changes (state/partialfold.go: a track read's person, an import's
// people). The engine reads the people the plan's track changes name
// (all read). An exclude block by domain over the people of its tracks
// or imports learns the company domains from the store
// (Reads.ReadColleagues: the plan, its check and the engine), unless an
// import may change a person holding a listed domain
// (importsKeepColleagues): then every holder of a listed domain is read
// and their pairs are learned instead (readDomainHolders). A plan that
// reads every person only for an enrich block the store's indexes answer
// (plan.EnrichReadsOf, as plan reads it, with a track or an import
// beside it: partialEnrich) runs on a partial state too.
// A saved plan is judged by the targets and replacements it was made
// with, at the time it was made: it runs only within the plan made again
// from them (plan.Within).
// Any other apply loads the state whole; the
// layer around the backend (Rescuing) folds in, and writes, what an
// earlier run kept in a rescue file before the plan is made.
// onRecords is given the records read (a backend that reads in part)
// before anything more is read.
func applyState(d Deps, opts ApplyOptions, onRecords func(*state.State)) (*applyRead, error) {
	if backend.ReadsInPart(d.Backend) {
		sel, err := selection(opts)
		if err != nil {
			return nil, err
		}
		b, err := backend.OpenBase(d.Backend)
		if err != nil {
			return nil, err
		}
		onRecords(b.Records)
		in, err := partialRead(d, opts, b, sel)
		if err != nil || in != nil {
			if err != nil {
				b.Close()
			}
			return in, err
		}
		if err := b.Close(); err != nil {
			return nil, err
		}
	}
	st, err := d.Backend.Load()
	return &applyRead{st: st, release: noRelease}, err
}

// partialRead is the partial state of b an apply of sel runs on (see
// applyState), nil when it loads the state whole.
func partialRead(d Deps, opts ApplyOptions, b *state.Base, sel plan.Options) (*applyRead, error) {
	if !b.Stored() {
		return nil, nil
	}
	if opts.PlanFile == "" {
		sel.Now = d.now() // the plan's time, as the store is asked at it
	}
	exp, err := plan.ExpiredOf(opts.Config, sel, b)
	if err != nil {
		return nil, err
	}
	// Many people to remove are read in the kept form (ReadKept), and
	// the fold of their removal reads what it changes a page at a time
	// (state/removal.go): nobody is read whole for it.
	sel.Expired = exp
	reads, err := foldableReads(opts.Config, b, &sel)
	if err != nil {
		return nil, err
	}
	if reads.Foldable() {
		col, err := reads.ReadColleagues(b, opts.Config)
		if err != nil {
			return nil, err
		}
		st, err := writableReading(b, reads)
		if err == nil {
			err = exp.ReadKept(b, st)
		}
		if err != nil {
			return nil, err
		}
		if col != nil && len(reads.Imports) > 0 {
			keep, err := importsKeepColleagues(st, opts.Config, reads.Imports)
			if err != nil {
				return nil, err
			}
			if !keep {
				// Every holder of a listed domain read: their pairs, not
				// the store's, as they are when first asked.
				if ok, err := readDomainHolders(b, st, opts.Config); err != nil || !ok {
					return nil, err // !ok: the state read whole
				}
				col = &plan.Colleagues{}
			}
		}
		// A read snapshot that fails to end loses nothing.
		return &applyRead{st: st, release: sync.OnceValue(b.Close), colleagues: col, expired: exp, now: sel.Now, gcBack: applyGC(st)}, nil
	}
	if opts.PlanFile != "" && sel.Now.IsZero() {
		// A plan saved without its time: plan.Within plans it again over
		// the state read whole.
		return nil, nil
	}
	return partialEnrich(d, opts, b, sel)
}

// selection is what the plan to apply covers: --target and --replace,
// or those of the saved plan and the time it was made at (Now).
func selection(opts ApplyOptions) (plan.Options, error) {
	if opts.PlanFile == "" {
		return plan.Options{Targets: opts.Targets, Replace: opts.Replace}, nil
	}
	p, err := plan.Load(opts.PlanFile)
	if err != nil {
		return plan.Options{}, err
	}
	return plan.Options{Targets: p.Targets, Replace: p.Replace, Now: p.CreatedAt}, nil
}

// writableReading is the partial state of b holding what the plan reads,
// as Reads.Read reads it. It reads at once the lead lists of the
// searches the plan reads by ID and of its tracks' sources, packed
// (State.ReadLeadsPacked); the fold of a call reads as strings the lists
// it changes. It reads the store's counts of the lists the plan counts,
// the people it names, its sources' people and those its tracks read
// before. An ID of a page name ("page:"), and the page name of a file to
// import (Reads.Pages), is followed to every person that page name finds
// (State.ReadRefs). Reads.Read, with no index of page names, reads every
// person for one.
func writableReading(b *state.Base, reads plan.Reads) (*state.State, error) {
	st, err := b.Writable()
	if err != nil {
		return nil, err
	}
	if err := st.ReadLeadsPacked(append(slices.Clone(reads.Searches), reads.Sources...)); err != nil {
		return nil, err
	}
	b.CountLeads(st, reads.Counted)
	ids, sketch, err := reads.EnrichedInto(b, st, st.ReadRefs)
	if err != nil {
		return nil, err
	}
	ids = append(ids, reads.Persons...)
	for _, page := range reads.Pages {
		ids = append(ids, state.PagePrefix+page)
	}
	for _, addr := range reads.Sources {
		if sr := st.Searches[addr]; sr != nil {
			ids = sr.Leads().AppendTo(ids)
		}
	}
	for _, addr := range reads.Tracks {
		tracked, _, err := b.BlockPeople(kind.Track, addr)
		if err != nil {
			return nil, err
		}
		ids = append(ids, tracked...)
	}
	if err := st.ReadRefs(ids); err != nil {
		return nil, err
	}
	return st, sketch()
}

// checkAddressesFirst refuses a --target or --replace that names nothing
// before anything is locked or written (the lock of a first apply makes
// the state's folder). Addresses the configuration declares need no
// state; only when one is not declared are the state's records read,
// without the lock as plan reads them, for the addresses they hold.
// Under the lock, Build checks them again.
func checkAddressesFirst(d Deps, opts ApplyOptions) error {
	if opts.PlanFile != "" || len(opts.Targets)+len(opts.Replace) == 0 {
		return nil
	}
	if !plan.CheckAddresses(opts.Config, nil, opts.Targets, opts.Replace).HasErrors() {
		return nil
	}
	// The addresses are the records': no person is read.
	b, err := backend.OpenBase(d.Backend)
	if err != nil {
		return err
	}
	defer b.Close()
	if diags := plan.CheckAddresses(opts.Config, b.Records, opts.Targets, opts.Replace); diags.HasErrors() {
		return &DiagnosticsError{Diags: diags}
	}
	return nil
}

// applyBudget is the budget an apply keeps to (leadsync { budget }): what
// was spent, and the ledger its calls are reserved in (nil without a
// budget, or on a backend that keeps none).
type applyBudget struct {
	bs  *plan.BudgetState
	led backend.Ledger
}

// applyPlan is the plan to apply: the saved plan of opts, checked against
// st (and against the budget as spent now), or one built now (after the
// billing call) within the budget and confirmed. A nil plan with a nil
// error means there is nothing to do (the view said so). budget is set
// even when an error is returned: its ledger is to be closed.
func applyPlan(ctx context.Context, d Deps, opts ApplyOptions, view ApplyView, in *applyRead, ahead *serviceAhead, log *exportLog, budget *applyBudget) (*plan.Plan, *api.Usage, error) {
	cfg, st := opts.Config, in.st
	if opts.PlanFile != "" {
		p, err := plan.Load(opts.PlanFile)
		if err != nil {
			return nil, nil, err
		}
		if err := p.Stale(cfg, st); err != nil {
			return nil, nil, err
		}
		// The checksum shows an accidental edit, not a deliberate one:
		// whatever the file says, apply spends no more than the
		// configuration and state allow.
		if err := in.within(d, opts.PlanFile, cfg, p); err != nil {
			return nil, nil, err
		}
		st = in.st
		if !p.HasChanges() {
			// As a plain apply with nothing to do: say so, make no call.
			view.Plan(p)
			return nil, nil, nil
		}
		budget.bs, budget.led = budgetStateIn(d, cfg, st, nil, p.Budget, true)
		if err := checkSavedBudget(cfg, p, budget.bs); err != nil {
			return nil, nil, err
		}
		return p, nil, nil
	}
	popts := plan.Options{Now: in.planTime(d), Targets: opts.Targets, Replace: opts.Replace, ExportRecord: log.lookup, Reuse: reuseLookup(d.Backend), ReuseHeld: reuseHeld(d.Backend)}
	var usage *api.Usage
	// An unknown target costs no call: Build reports it.
	addrErr := plan.CheckAddresses(cfg, st, opts.Targets, opts.Replace).HasErrors()
	if HasBilling(cfg) && !addrErr {
		u, err := ahead.billing(ctx)
		if err != nil {
			return nil, nil, &BillingError{Err: err}
		}
		popts.Usage, usage = u, u
	}
	budget.bs, budget.led = budgetState(d, cfg, st, usage, true)
	popts.Budget = budget.bs
	p, diags, err := in.build(d, cfg, popts)
	if err != nil {
		return nil, nil, err
	}
	if diags.HasErrors() {
		// Only the error: no plan, no "No changes" after it.
		return nil, nil, &DiagnosticsError{Diags: diags}
	}
	view.Plan(p)
	if !p.HasChanges() {
		return nil, nil, nil
	}
	if err := budgetUnchecked(cfg, budget.bs); err != nil {
		return nil, nil, err
	}
	if !opts.AutoApprove {
		ok, err := opts.Confirm()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			return nil, nil, ErrCancelled
		}
	}
	return p, usage, nil
}

// executed is what running a plan left for the end of the apply.
type executed struct {
	sum *engine.Summary
	// err is the engine's (a result that could not be recorded, an
	// abort), or the recording's when it could not be closed.
	err error
	// commit is set when the plan changes state: the state is committed.
	commit bool
	// aborted is set after a second interrupt.
	aborted bool
	// stopped is set after a first interrupt (or what counts as one).
	stopped bool
	// skipOnNext makes any later interrupt skip the spreadsheets
	// (watchInterrupts): called once the calls are over after a stop.
	skipOnNext func()
	// folded counts the events of an interrupted command the state
	// loaded held and the commit writes (backend.UnfoldedCalls).
	folded int
}

// engineControl is how the apply steers the engine: stop closes at the
// first interrupt; progress shows the run; budget bounds its spending;
// colleagues are the store's company domains of a partial state
// (applyRead.colleagues); facts the store's answers its plan was made
// with (applyRead.facts).
type engineControl struct {
	stop       <-chan struct{}
	progress   engine.Progress
	budget     applyBudget
	colleagues *plan.Colleagues
	facts      *plan.EnrichFacts
}

// execute runs p through the engine. A plan that only writes
// spreadsheets (their configuration changed, or the state did since they
// were written) changes no state: nothing is recorded or committed, so
// the serial stays and the other spreadsheets stay up to date. Any other
// plan records every call (the billing figures first, kept for show and
// the Summary sheet) and is committed at the end.
func execute(ctx context.Context, d Deps, opts ApplyOptions, st *state.State, svc api.Service, p *plan.Plan, usage *api.Usage, ctl engineControl) (*executed, error) {
	// Calls a killed apply left are folded in, also by a plan that only
	// writes spreadsheets.
	r := &executed{commit: changesState(p) || backend.Unfolded(d.Backend), folded: backend.UnfoldedCalls(d.Backend)}
	claims, err := openClaims(d, p)
	if err != nil {
		return nil, err
	}
	if claims != nil {
		// Closed once the run is over: a claim it still held (it never
		// does after a run that ended) ends with it.
		defer claims.Close()
	}
	var journal engine.Journal = noCalls{}
	var rec backend.Recorder
	if r.commit {
		if usage != nil {
			if err := st.Fold(state.Event{At: d.now(), Kind: state.EventBilling, Billing: usage}); err != nil {
				return nil, err
			}
		}
		var err error
		if rec, err = d.Backend.OpenJournal(st); err != nil {
			return nil, err
		}
		journal = rec
	}
	r.sum, r.err = engine.Run(ctx, engine.Options{
		Config:     opts.Config,
		Plan:       p,
		State:      st,
		Journal:    journal,
		Service:    svc,
		Now:        d.clock(),
		Stop:       ctl.stop,
		Progress:   ctl.progress,
		Reuse:      reuseLookup(d.Backend),
		Budget:     engineBudget(opts.Config, ctl.budget.bs, ctl.budget.led, writeRetry(ctx, d)),
		Claims:     engineClaims(claims, writeRetry(ctx, d)),
		Colleagues: ctl.colleagues,
		Enrich:     ctl.facts,
	})
	if rec != nil {
		if err := closeRecorder(ctx, rec); err != nil && r.err == nil {
			r.err = err
		}
	}
	return r, nil
}

// finish ends an apply that ran: the state is committed (unless it was
// aborted), then the spreadsheets are written from it. A second
// interrupt (ctx's end) while they are written stops their writer
// between batches of rows and before each rename (export.ErrStopped):
// the files it put in place are written, the others are not, and apply
// returns ErrSheetsSkipped once it has stopped.
func finish(ctx context.Context, d Deps, cfg *config.Config, st *state.State, p *plan.Plan, r *executed, view ApplyView, log *exportLog) error {
	exports := plannedExports(cfg, p)
	if r.aborted {
		// Exit at once; every finished call is recorded.
		return unwritten(cfg, exports, nil, ErrAborted)
	}
	if _, ok := errors.AsType[*engine.MovesError](r.err); ok {
		// Nothing more is written (the moves' write may have committed):
		// the next command folds the recorded moves in.
		return unwritten(cfg, exports, nil, r.err)
	}
	if r.commit {
		if err := d.Backend.Commit(st); err != nil {
			return unwritten(cfg, exports, nil, commitError(d, r.sum, err))
		}
		showFolded(view, r.folded)
		// After the commit: the record names the state as committed.
		exports = cfg.Exports
	}
	if r.err != nil {
		return unwritten(cfg, exports, nil, r.err)
	}
	if len(exports) > 0 {
		if r.stopped {
			r.skipOnNext() // the calls are over: a Ctrl-C now skips the spreadsheets
			view.WritingAfterStop(len(exports))
		}
		written, err := writeAfterRun(ctx, d, cfg, st, exports, r.sum, log)
		view.Exports(cfg, written)
		if errors.Is(err, export.ErrStopped) {
			return unwritten(cfg, exports, written, ErrSheetsSkipped)
		}
		if err != nil {
			return unwritten(cfg, exports, written, err)
		}
	}
	if r.sum.Failed() {
		return ErrFailed
	}
	return nil
}

// writeAfterRun writes the spreadsheets exports from the state st a run
// left, its figures from sum, until ctx ends (export.ErrStopped).
func writeAfterRun(ctx context.Context, d Deps, cfg *config.Config, st *state.State, exports []*config.Export, sum *engine.Summary, log *exportLog) ([]export.Written, error) {
	src, err := exportBase(d, st)
	if err != nil {
		return nil, fmt.Errorf("reading the state for the spreadsheets (state is saved; run leadsync export to try again): %w", err)
	}
	defer src.Close()
	if src.Stored() {
		defer exportGC()()
	}
	written, err := writeExports(cfg, exports, src, export.Options{Now: d.clock(), Stop: ctx,
		Stats: &export.RunStats{CreditsSpent: sum.Credits, CreditsUnknown: sum.CreditsUnknown}}, d.clock(), log)
	if err != nil {
		return written, fmt.Errorf("writing the spreadsheets (state is saved; run leadsync export to try again): %w", err)
	}
	return written, nil
}

// closed reports whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// exportBase is the Base the spreadsheets are written from: the state in
// memory (state.NewBase), or, for a partial state (which holds only the
// people the run read), the state as committed, opened as leadsync export
// opens it (backend.OpenBase: a store's people read a page at a time).
func exportBase(d Deps, st *state.State) (*state.Base, error) {
	if !st.Partial() {
		return state.NewBase(st), nil
	}
	return backend.OpenBase(d.Backend)
}

// commitError says that the final commit failed, and where what the run
// recorded is kept meanwhile: with the backend (its journal, its
// transactions), and in the rescue file for what it could not write.
func commitError(d Deps, sum *engine.Summary, err error) error {
	where := "every call recorded so far is kept with the " + d.Backend.Describe()
	if sum != nil && sum.KeptIn != "" {
		where += ", and the results it could not write are kept in " + sum.KeptIn
	}
	return fmt.Errorf("saving state (%s; the next command folds them in): %w", where, err)
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
