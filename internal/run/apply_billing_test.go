package run

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
)

// billedOnce is a service whose first billing call closes billed.
type billedOnce struct {
	api.Service
	once   sync.Once
	billed chan struct{}
}

func (b *billedOnce) Billing(ctx context.Context) (*api.Usage, error) {
	b.once.Do(func() { close(b.billed) })
	return b.Service.Billing(ctx)
}

// TestApplyBillsWhileItReadsTheState: an apply of a state in the local
// database makes its billing call once its records are read, while it
// reads the rest and before the plan is made (serviceAhead), so that the
// rate limit's second after it runs meanwhile. The clock the plan's time
// is taken from waits for the billing call: without the call made ahead,
// the apply would wait for ever (go test's -timeout says where). The
// call is made once, and its answer is the plan's.
func TestApplyBillsWhileItReadsTheState(t *testing.T) {
	d, rec, n, svc, cfg := appliedOnce(t)
	later := t0.Add(time.Hour)
	d.Now = func() time.Time { <-svc.billed; return later }
	rec.ops = nil
	v := &planView{}
	err := Apply(context.Background(), d, ApplyOptions{Config: cfg, Replace: []string{`search.s["Berlin"]`}, AutoApprove: true}, v)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(rec.ops, "load") {
		t.Errorf("the whole state was loaded: %v", rec.ops)
	}
	if n.billing != 2 || n.searches != 3 {
		t.Errorf("%d billing calls, %d searches; want 2 and 3", n.billing, n.searches)
	}
	if v.shown == nil || !v.shown.Quota.Checked || v.shown.Quota.RemainingRequests == nil {
		t.Fatalf("the plan shown did not check the quota by the billing call: %+v", v.shown)
	}
}

// appliedOnce is a state in the local database that an apply of the
// test configuration filled, and the deps of the next apply: their
// service closes svc.billed at its first billing call.
func appliedOnce(t *testing.T) (d Deps, rec *recBackend, n *counting, svc *billedOnce, cfg *config.Config) {
	t.Helper()
	dir := t.TempDir()
	rec = &recBackend{Backend: local.Open(filepath.Join(dir, ".leadsync", "state.db"))}
	d, _, n, _ = newDeps(t)
	d.Backend = seeThrough{rec}
	cfg = loadConfig(t, dir)
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
	svc = &billedOnce{Service: n, billed: make(chan struct{})}
	d.Service = func() (api.Service, error) { return svc, nil }
	return d, rec, n, svc, cfg
}

// TestApplyBillsAheadOnlyWhenItWould: no billing call is made ahead when
// the apply would make none (billingSure): a state filled from another
// service. A client that cannot be built fails the apply as before, and
// no call is made.
func TestApplyBillsAheadOnlyWhenItWould(t *testing.T) {
	dir := t.TempDir()
	rec := &recBackend{Backend: local.Open(filepath.Join(dir, ".leadsync", "state.db"))}
	d, _, n, _ := newDeps(t)
	d.Backend = seeThrough{rec}
	cfg := loadConfig(t, dir)
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
	replace := []string{`search.s["Berlin"]`}
	other := loadConfig(t, dir)
	other.API.Sandbox, other.API.BaseURL = false, "https://api.example.com"
	var changed *ServiceChangedError
	if err := Apply(context.Background(), d, ApplyOptions{Config: other, Replace: replace, AutoApprove: true}, &recView{}); !errors.As(err, &changed) {
		t.Errorf("another service: %v, want a *ServiceChangedError", err)
	}
	noClient := errors.New("no client")
	d.Service = func() (api.Service, error) { return nil, noClient }
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, Replace: replace, AutoApprove: true}, &recView{}); !errors.Is(err, noClient) {
		t.Errorf("no client: %v, want %v", err, noClient)
	}
	if n.billing != 1 || n.searches != 2 {
		t.Errorf("%d billing calls, %d searches; want those of the first apply only (1 and 2)", n.billing, n.searches)
	}
}

// baseAfterBilling is a backend whose records are read only once the
// billing call was made (billed closed).
type baseAfterBilling struct {
	seeThrough
	billed <-chan struct{}
}

func (b baseAfterBilling) OpenBase() (*state.Base, error) {
	<-b.billed
	return backend.OpenBase(b.seeThrough)
}

// TestApplyBillsOnTheWorkspaceRow: the billing call is decided on the
// workspace's row (backend.ReadWorkspaceRow), before the records of a
// large state are read: the records here are read only once it was made.
// Decided on the records, the apply would wait for ever (go test's
// -timeout says where). The call is made once, and the plan's quota is
// its answer.
func TestApplyBillsOnTheWorkspaceRow(t *testing.T) {
	d, rec, n, svc, cfg := appliedOnce(t)
	d.Backend = baseAfterBilling{seeThrough{rec}, svc.billed}
	v := &planView{}
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, Replace: []string{`search.s["Berlin"]`}, AutoApprove: true}, v); err != nil {
		t.Fatal(err)
	}
	if n.billing != 2 || n.searches != 3 {
		t.Errorf("%d billing calls, %d searches; want 2 and 3", n.billing, n.searches)
	}
	if v.shown == nil || !v.shown.Quota.Checked {
		t.Fatalf("the plan shown did not check the quota by the billing call: %+v", v.shown)
	}
}
