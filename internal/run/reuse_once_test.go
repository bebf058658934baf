package run

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
)

// localWorkspace names the embedded field of elsewhereCounter: as
// Workspace, it would hide the method Workspace (backend.Workspaced).
type localWorkspace = local.Workspace

// elsewhereCounter is a local workspace that counts its reads of the
// other workspaces.
type elsewhereCounter struct {
	*localWorkspace
	keys, lookups, once int
}

func (c *elsewhereCounter) EnrichedKeysElsewhere() ([]string, error) {
	c.keys++
	return c.localWorkspace.EnrichedKeysElsewhere()
}

func (c *elsewhereCounter) EnrichmentsElsewhere(keys []string) (map[string]state.Reusable, error) {
	c.lookups++
	return c.localWorkspace.EnrichmentsElsewhere(keys)
}

func (c *elsewhereCounter) ElsewhereOnce() ([]string, func([]string) (map[string]state.Reusable, error), error) {
	c.once++
	return c.localWorkspace.ElsewhereOnce()
}

// TestReuseReadsTheOtherWorkspacesOnce: workspace dach enriched four
// people, default two of them; a plan of default with places left copies
// the other two. It lists dach's keys once (ElsewhereOnce: narrowly, as
// dach is a database) and asks once about the people they find
// (EnrichmentsElsewhere: by their indexes), never listing them apart
// (EnrichedKeysElsewhere), and the plan is the whole state's, made with
// the lookup that reads dach again. So is an apply's plan, whose run
// asks dach again for the people a search brings (reuseLookup).
func TestReuseReadsTheOtherWorkspacesOnce(t *testing.T) {
	d, ws, whole, dir := twoEnrichedWorkspaces(t)
	now := t0.Add(24 * time.Hour)
	d.Now = func() time.Time { return now }
	cfg := loadConfigText(t, dir, enrichConfig(6))
	o := plan.Options{Now: now, Targets: []string{"enrich.contacts"}, Offline: true, Reuse: ws.EnrichmentsElsewhere}
	want, _ := plan.Build(cfg, whole, o)
	if c := want.Changes[len(want.Changes)-1]; c.Reuses != 2 {
		t.Fatalf("the whole state's plan copies %d enrichments, want 2: %+v", c.Reuses, c)
	}
	c := &elsewhereCounter{localWorkspace: ws}
	d.Backend = c
	samePlan(t, d, cfg, want)
	if c.once != 1 || c.keys != 0 || c.lookups != 1 {
		t.Errorf("the plan read dach %d times at once, %d for its keys and %d for lookups; want once, 0 and once", c.once, c.keys, c.lookups)
	}
	*c = elsewhereCounter{localWorkspace: ws}
	v := &planView{}
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, Targets: []string{"enrich.contacts"}, AutoApprove: true}, v); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(jsonOf(t, want.Changes), jsonOf(t, v.shown.Changes)); diff != "" {
		t.Errorf("the apply's plan differs from the whole state's (-whole +applied):\n%s", diff)
	}
	if c.once != 1 || c.keys != 0 {
		t.Errorf("the apply read dach %d times at once and %d for its keys; want once and 0", c.once, c.keys)
	}
}

// twoEnrichedWorkspaces are the deps of an apply in workspace default,
// which enriched two people, beside dach, which enriched those and two
// more (TestReuseReadsTheOtherWorkspacesOnce), with default's state
// loaded whole and the directory of their configurations.
func twoEnrichedWorkspaces(t *testing.T) (Deps, *local.Workspace, *state.State, string) {
	t.Helper()
	dir := t.TempDir()
	set := local.NewWorkspaces(filepath.Join(dir, ".leadsync", "state.db"), nil)
	if err := set.CreateWorkspace("dach"); err != nil {
		t.Fatal(err)
	}
	d, _, _, _ := newDeps(t)
	for _, ws := range []struct {
		name  string
		limit int
	}{{"dach", 4}, {"default", 2}} {
		b, err := set.Open(ws.name)
		if err != nil {
			t.Fatal(err)
		}
		d.Backend = b
		if err := Apply(context.Background(), d, ApplyOptions{Config: loadConfigText(t, dir, enrichConfig(ws.limit)), AutoApprove: true}, &recView{}); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := set.Open("default")
	if err != nil {
		t.Fatal(err)
	}
	whole, err := ws.Load()
	if err != nil {
		t.Fatal(err)
	}
	return d, ws, whole, dir
}

// TestReuseAtTheLimitListsNoKeys: a plan of default at its limit (2 of
// 2) can copy nothing, so it neither lists dach's keys nor reads dach
// once for them (ElsewhereOnce): it asks dach about the people it reads
// (EnrichmentsElsewhere), and the plan is the whole state's.
func TestReuseAtTheLimitListsNoKeys(t *testing.T) {
	d, ws, whole, dir := twoEnrichedWorkspaces(t)
	now := t0.Add(24 * time.Hour)
	d.Now = func() time.Time { return now }
	cfg := loadConfigText(t, dir, enrichConfig(2))
	want, _ := plan.Build(cfg, whole, plan.Options{Now: now, Targets: []string{"enrich.contacts"}, Offline: true, Reuse: ws.EnrichmentsElsewhere})
	c := &elsewhereCounter{localWorkspace: ws}
	d.Backend = c
	samePlan(t, d, cfg, want)
	if c.once+c.keys != 0 {
		t.Errorf("the plan at the limit read dach %d times at once and %d for its keys; want neither", c.once, c.keys)
	}
}

// samePlan plans enrich.contacts of cfg with d (Plan, offline) and
// compares the plan with want, the whole state's.
func samePlan(t *testing.T, d Deps, cfg *config.Config, want *plan.Plan) {
	t.Helper()
	got, diags, err := Plan(context.Background(), d, PlanOptions{Config: cfg, Targets: []string{"enrich.contacts"}, Offline: true})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	if diff := cmp.Diff(jsonOf(t, want), jsonOf(t, got)); diff != "" {
		t.Errorf("the plan differs from the whole state's (-whole +read):\n%s", diff)
	}
}

// failingLookup is a local workspace whose kept lookup fails, as when a
// database listed narrowly cannot be read again.
type failingLookup struct {
	*localWorkspace
}

func (f failingLookup) ElsewhereOnce() ([]string, func([]string) (map[string]state.Reusable, error), error) {
	keys, _, err := f.localWorkspace.ElsewhereOnce()
	return keys, func([]string) (map[string]state.Reusable, error) {
		return nil, errors.New("cannot read workspace dach: disk I/O error")
	}, err
}

// TestReuseLookupErrorStopsTheApply: when the lookup kept by one read of
// the other workspaces fails, the apply stops with its error, once,
// before any paid call (a reuse missed would pay an enrichment again):
// no search, and default holds its two enrichments alone. The billing
// call, free, is made ahead of the plan.
func TestReuseLookupErrorStopsTheApply(t *testing.T) {
	d, ws, _, dir := twoEnrichedWorkspaces(t)
	d.Now = func() time.Time { return t0.Add(24 * time.Hour) }
	svc, n := sandboxService(t)
	d.Service = func() (api.Service, error) { return svc, nil }
	d.Backend = failingLookup{localWorkspace: ws}
	cfg := loadConfigText(t, dir, enrichConfig(6))
	err := Apply(context.Background(), d, ApplyOptions{Config: cfg, Targets: []string{"enrich.contacts"}, AutoApprove: true}, &recView{})
	if err == nil || strings.Count(err.Error(), "disk I/O error") != 1 {
		t.Fatalf("apply: %v; want the lookup's error, once", err)
	}
	after, err := ws.Load()
	if err != nil {
		t.Fatal(err)
	}
	enriched := 0
	for _, p := range after.People {
		if p.Enrichment != nil {
			enriched++
		}
	}
	if n.searches != 0 || enriched != 2 {
		t.Errorf("%d searches and %d people enriched after the lookup failed; want none and 2", n.searches, enriched)
	}
}
