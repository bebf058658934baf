package run

import (
	"context"
	"sync"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// serviceAhead builds the client of the service, and makes the billing
// call of an apply, while the apply reads its state: the service's rate
// limit spaces the first paid call a second after the billing call, so
// the earlier that call, the earlier the first paid one (when the plan
// is ready by then). Neither costs credits; the billing call is made only
// when the apply, as it reads its workspace's row or its records under
// the lock, is sure to make it (billingSure), and its answer is taken
// where apply would have made it. The client is built once: the billing
// call and the run share its pacer. No call is sent by it after apply
// returns (stop).
type serviceAhead struct {
	built  chan struct{} // closed when svc and svcErr are set
	svc    api.Service
	svcErr error

	ctx    context.Context
	cancel context.CancelFunc
	// billed is closed when usage and billErr are set; nil while the
	// billing call was not started.
	billed  chan struct{}
	usage   *api.Usage
	billErr error
	wg      sync.WaitGroup
}

// startService starts building the client of d (d.Service) in the
// background. No call is made.
func startService(ctx context.Context, d Deps) *serviceAhead {
	a := &serviceAhead{built: make(chan struct{})}
	a.ctx, a.cancel = context.WithCancel(ctx)
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer close(a.built)
		defer recovered.Catch(&a.svcErr) // a bug: apply's error
		a.svc, a.svcErr = d.Service()
	}()
	return a
}

// service is d.Service's answer, as apply asked it before.
func (a *serviceAhead) service() (api.Service, error) {
	<-a.built
	return a.svc, a.svcErr
}

// billingSure reports whether an apply of opts over a state of these
// records makes its billing call: a plan made now (not a saved one), of
// a service with a billing operation, the state filled from that service
// and by this configuration (checkService, checkConfiguration), and
// every --target and --replace naming something (an unknown one costs no
// call). apply checks the same again over the state it then holds.
func billingSure(d Deps, opts ApplyOptions, records *state.State) bool {
	cfg := opts.Config
	return opts.PlanFile == "" && HasBilling(cfg) &&
		checkService(records, ServiceOf(cfg, d.Account)) == nil &&
		checkConfiguration(records, cfg.Identity(), opts.TakeOver) == nil &&
		!plan.CheckAddresses(cfg, records, opts.Targets, opts.Replace).HasErrors()
}

// billOnRow starts the billing call (billIfSure) when the workspace's row
// alone, read before the records (backend.ReadWorkspaceRow: one query),
// shows that the apply makes it: the service and the configuration the
// state belongs to are in the row, and the addresses of --target and
// --replace in the configuration. The records of a large state take
// longer to read, and the first paid call starts a second after the
// billing call. A row that cannot be read, or that decides nothing,
// leaves the decision to the records.
func (a *serviceAhead) billOnRow(d Deps, opts ApplyOptions) {
	if row, err := backend.ReadWorkspaceRow(d.Backend); err == nil {
		a.billIfSure(d, opts, row)
	}
}

// billIfSure starts the billing call (bill) when an apply over a state of
// these records is sure to make it (billingSure); nil records, or a call
// already started, decide nothing.
func (a *serviceAhead) billIfSure(d Deps, opts ApplyOptions, records *state.State) {
	if records != nil && a.billed == nil && billingSure(d, opts, records) {
		a.bill()
	}
}

// bill starts the billing call once the client is built (none when it
// could not be: service says why). A second call does nothing.
func (a *serviceAhead) bill() {
	if a.billed != nil {
		return
	}
	a.billed = make(chan struct{})
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		defer close(a.billed)
		defer recovered.Catch(&a.billErr) // a bug: apply's error
		<-a.built
		if a.svcErr != nil {
			return
		}
		a.usage, a.billErr = a.svc.Billing(a.ctx)
	}()
}

// billing is the answer of the billing call: the one made ahead when it
// was started (bill), else made now. The client is built (service gave
// no error).
func (a *serviceAhead) billing(ctx context.Context) (*api.Usage, error) {
	if a.billed == nil {
		return a.svc.Billing(ctx)
	}
	<-a.billed
	return a.usage, a.billErr
}

// stop ends what is under way (a billing call that apply no longer
// waits for, after an error) and waits for it. A panic of either (a bug)
// is raised again here, should apply have ended before it asked.
func (a *serviceAhead) stop() {
	a.cancel()
	a.wg.Wait()
	recovered.Raise(recovered.First(a.svcErr, a.billErr))
}
