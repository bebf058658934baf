package run

import (
	"context"
	"sync"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// PlanOptions are the inputs of one plan.
type PlanOptions struct {
	Config  *config.Config
	Targets []string
	Replace []string
	// Offline makes no call: the remaining requests are not checked.
	Offline bool
	// TakeOver is --take-over: plan a workspace filled by another
	// configuration as this one's.
	TakeOver bool
}

// Plan loads the state (without a lock: plan writes nothing; a run that
// holds the lock is named in a warning, see RunningOn), reads the
// remaining requests when the service has a billing operation and Offline
// is false, reads the working copy's export record, and builds the plan.
// The diagnostics are Build's, and a warning when the export record cannot
// be read (it then counts as none); a failed billing call is a
// *BillingError. Showing and saving the plan is the
// caller's.
func Plan(ctx context.Context, d Deps, opts PlanOptions) (*plan.Plan, hcl.Diagnostics, error) {
	popts := plan.Options{Now: d.now(), Targets: opts.Targets, Replace: opts.Replace}
	popts.Reuse, popts.ReuseHeld = reuseOnce(d.Backend)
	st, done, err := planState(d, opts, &popts)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	if err := checkService(st, ServiceOf(opts.Config, d.Account)); err != nil {
		return nil, nil, err
	}
	if err := checkConfiguration(st, opts.Config.Identity(), opts.TakeOver); err != nil {
		return nil, nil, err
	}
	running := RunningOn(d.Backend, st)
	var usage *api.Usage
	// An unknown target costs no call: Build reports it.
	addrErr := plan.CheckAddresses(opts.Config, st, opts.Targets, opts.Replace).HasErrors()
	if !opts.Offline && !addrErr && HasBilling(opts.Config) {
		svc, err := d.Service()
		if err != nil {
			return nil, nil, &BillingError{Err: err}
		}
		if usage, err = svc.Billing(ctx); err != nil {
			return nil, nil, &BillingError{Err: err}
		}
	}
	var warnings hcl.Diagnostics
	if running != nil {
		warnings = append(warnings, running.Warning(d.now()))
	}
	log := openExportLog(opts.Config, func(msg string) {
		warnings = append(warnings, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: msg})
	})
	bs, led := budgetState(d, opts.Config, st, usage, false)
	closeLedger(led)
	popts.Usage, popts.Offline, popts.ExportRecord, popts.Budget = usage, opts.Offline, log.lookup, bs
	p, diags := plan.Build(opts.Config, st, popts)
	if f := popts.Enrich.Recount(); f != nil {
		// The places walk could not decide the enrich block's plan: the
		// census of every enrichment can, over the same people read.
		popts.Enrich = f
		p, diags = plan.Build(opts.Config, st, popts)
	}
	// The snapshot ends first: a load is a read of its own.
	done()
	if err := popts.Enrich.Err(); err != nil {
		return nil, nil, err
	}
	if popts.Enrich.NeedsEveryone() {
		// The people read for the enrich block do not decide its plan:
		// the plan of the state read whole.
		if st, err = d.Backend.Load(); err != nil {
			return nil, nil, err
		}
		popts.Enrich, popts.Moved = nil, nil
		p, diags = plan.Build(opts.Config, st, popts)
	}
	// The run's and the record's warnings are the plan's own, drawn with it.
	p.Diagnostics = append(p.Diagnostics, plan.JSONDiagnostics(warnings)...)
	return p, append(diags, warnings...), nil
}

// planState reads what the plan of opts reads of the state (plan.ReadsOf):
// the records, then the lead lists of the searches it plans and the
// people it names (its tracks' and imports' too: Reads.Read, which finds
// the page names of a file to import through the store's index of page
// keys), or every person when it asks about people in bulk, or for such a
// page name when the store has no such index. A plan of one search of a
// state of millions reads one lead list. A plan whose tracks or imports
// an exclude block by domain matches asks the store for the company
// domains of the enrichments (popts.Colleagues: Reads.ReadColleagues).
//
// A plan that reads every person only for an enrich block of the common
// kind (plan.EnrichReadsOf) reads the people the store's indexes name
// instead, and gets the store's counts (popts.Enrich) for Build, which
// asks the store more (who takes the places the block's limit leaves):
// done ends the store's snapshot once Build is done (it may be called
// again).
func planState(d Deps, opts PlanOptions, popts *plan.Options) (st *state.State, done func() error, err error) {
	st, kept, err := readPlanState(d, opts, popts)
	done = func() error { return nil }
	if kept != nil {
		done = sync.OnceValue(kept.Close)
	}
	return st, done, err
}

// readPlanState is planState; kept is the Base whose snapshot Build still
// reads (popts.Enrich), nil when none is.
func readPlanState(d Deps, opts PlanOptions, popts *plan.Options) (*state.State, *state.Base, error) {
	b, err := backend.OpenBase(d.Backend)
	if err != nil {
		return nil, nil, err
	}
	// The people retention removes, from the store's index: read whole,
	// or in the kept form when many (Expired.ReadKept).
	if popts.Expired, err = plan.ExpiredOf(opts.Config, *popts, b); err != nil {
		b.Close()
		return nil, nil, err
	}
	// The moves of moved blocks, from the store's counts: the plan reads
	// what it reads of the state as they leave it.
	if b.Stored() {
		if popts.Moved, err = plan.MovesOf(opts.Config, b); err != nil {
			b.Close()
			return nil, nil, err
		}
	}
	r := plan.ReadsOf(opts.Config, b.Records, *popts)
	whole, readWhole := b.Whole()
	switch {
	case !r.People && (len(r.Pages) == 0 || b.FindsPages()):
		// (Without the store's index of page keys, Reads.Read would read
		// every person for Pages: Load does.)
		defer b.Close()
		st, err := r.Read(b)
		if err == nil {
			err = popts.Expired.ReadKept(b, st)
		}
		if err != nil {
			return nil, nil, err
		}
		popts.Colleagues, err = r.ReadColleagues(b, opts.Config)
		return st, nil, err
	case readWhole:
		popts.Moved = nil
		return whole, nil, nil
	case b.EnrichIndexed():
		er, facts, ok, err := plan.EnrichReadsOf(opts.Config, b.Records, *popts, b)
		if err == nil && ok {
			st, err := er.Read(b) // a track's and an import's people too
			if err == nil {
				err = popts.Expired.ReadKept(b, st)
			}
			if err != nil {
				b.Close()
				return nil, nil, err
			}
			facts.Fill(st)
			popts.Enrich = facts
			return st, b, nil
		}
		if err != nil {
			b.Close()
			return nil, nil, err
		}
	}
	// The snapshot ends first: a load is a read of its own.
	if err := b.Close(); err != nil {
		return nil, nil, err
	}
	popts.Moved = nil
	st, err := d.Backend.Load()
	return st, nil, err
}
