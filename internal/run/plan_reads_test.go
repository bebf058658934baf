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
// state. A plan that covers the export (a CSV file) reads no person
// either.
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
		{nil, false}, // the export reads records
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

// workbookConfig is three searches, one of them never run (search.new),
// and a workbook of their people and of their changes.
const workbookConfig = `
api {
  sandbox     = true
  rate_limit  = 50
  parallelism = 2
}
search "s" {
  for_each    = toset(["Berlin", "Hamburg"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 3
}
search "new" {
  keywords    = "Engineer"
  city        = "Munich"
  max_results = 2
}
export "all" {
  path = "out/all.xlsx"
  sheet "people" {
    from = [search.s, search.new]
  }
  sheet "changes" {
    changes = [search.s]
  }
}
`

// TestPlanOfSearchesAndAnExportLoadsNoState plans a configuration of
// searches and a workbook export of a state in the local database, after
// an apply of the searches but one: whole, the export targeted (with its
// sources) and one search. None reads every person (plan.ReadsOf names the
// export's searches), and each is the plan of the state loaded whole,
// byte for byte, the export's record of the working copy included.
func TestPlanOfSearchesAndAnExportLoadsNoState(t *testing.T) {
	dir := t.TempDir()
	rec := &recBackend{Backend: local.Open(filepath.Join(dir, ".leadsync", "state.db"))}
	d, _, _, _ := newDeps(t)
	d.Backend = seeThrough{rec}
	cfg := loadConfigText(t, dir, workbookConfig)
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true, Targets: []string{"search.s"}}, &recView{}); err != nil {
		t.Fatal(err)
	}
	wholeDeps := d
	wholeDeps.Backend = rec // no store below it: the state is loaded whole
	for _, targets := range [][]string{nil, {"export.all"}, {`search.s["Hamburg"]`}} {
		rec.ops = nil
		p, diags, err := Plan(context.Background(), d, PlanOptions{Config: cfg, Targets: targets, Offline: true})
		if err != nil || diags.HasErrors() {
			t.Fatal(err, diags)
		}
		if slices.Contains(rec.ops, "load") {
			t.Errorf("targets %q: the whole state loaded (%v)", targets, rec.ops)
		}
		if c := p.Change("export.all"); (targets == nil || targets[0] == "export.all") && (c == nil || c.Action != plan.Write) {
			t.Errorf("targets %q: the export is not planned: %+v", targets, c)
		}
		want, diags, err := Plan(context.Background(), wholeDeps, PlanOptions{Config: cfg, Targets: targets, Offline: true})
		if err != nil || diags.HasErrors() || !slices.Contains(rec.ops, "load") {
			t.Fatal(err, diags, rec.ops)
		}
		if diff := cmp.Diff(jsonOf(t, want), jsonOf(t, p)); diff != "" {
			t.Errorf("targets %q: the plan differs from the plan of the whole state (-whole +read):\n%s", targets, diff)
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
