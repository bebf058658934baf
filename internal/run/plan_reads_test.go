package run

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
)

// seeThrough is a recBackend whose layer below stays visible, as the
// CLI's layers are: a store's abilities (backend.OpenBase) are found.
type seeThrough struct{ *recBackend }

func (s seeThrough) Unwrap() backend.Backend { return s.recBackend.Backend }

// TestPlanOfOneSearchLoadsNoState plans one search of a state in the
// local database: the plan reads the records and that search's lead list
// (plan.ReadsOf), never the whole state, and is the plan of the whole
// state. A plan that covers the export reads every person.
func TestPlanOfOneSearchLoadsNoState(t *testing.T) {
	dir := t.TempDir()
	rec := &recBackend{Backend: local.Open(filepath.Join(dir, ".leadsync", "state.db"))}
	d, _, _, _ := newDeps(t)
	d.Backend = seeThrough{rec}
	cfg := loadConfig(t, dir)
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
	whole, err := rec.Backend.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		targets []string
		loads   bool
	}{
		{[]string{`search.s["Berlin"]`}, false},
		{[]string{"search.s"}, false},
		{nil, true}, // the export reads people
	} {
		rec.ops = nil
		p, diags, err := Plan(context.Background(), d, PlanOptions{Config: cfg, Targets: tt.targets, Offline: true})
		if err != nil || diags.HasErrors() {
			t.Fatal(err, diags)
		}
		if loaded := slices.Contains(rec.ops, "load"); loaded != tt.loads {
			t.Errorf("targets %q: the whole state loaded: %v, want %v (%v)", tt.targets, loaded, tt.loads, rec.ops)
		}
		if tt.targets == nil {
			continue // the export's plan reads the working copy's record too
		}
		want, _ := plan.Build(cfg, whole, plan.Options{Now: t0, Targets: tt.targets, Offline: true})
		if diff := cmp.Diff(jsonOf(t, want), jsonOf(t, p)); diff != "" {
			t.Errorf("targets %q: the plan differs from the plan of the whole state (-whole +read):\n%s", tt.targets, diff)
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
