package run

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
)

// TestPlanWithRetentionLoadsNoState plans leadsync { retention } over a
// state in the local database, whose people a search saw an hour ago:
// the plan asks the store for those it removes (plan.ExpiredOf) and reads
// them, never the whole state, and is the whole state's plan, at a
// retention that keeps everyone and at one that removes everyone.
func TestPlanWithRetentionLoadsNoState(t *testing.T) {
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
	now := t0.Add(time.Hour)
	d.Now = func() time.Time { return now }
	for i, r := range []time.Duration{2 * time.Hour, 30 * time.Minute, 30 * time.Minute} {
		if i == 2 {
			// Past the limit, the people to go are read in the kept form.
			defer plan.SetMaxExpiredRead(1)()
		}
		cfg.Settings.Retention = r
		rec.ops = nil
		p, diags, err := Plan(context.Background(), d, PlanOptions{Config: cfg, Offline: true})
		if err != nil || diags.HasErrors() {
			t.Fatal(err, diags)
		}
		if slices.Contains(rec.ops, "load") {
			t.Errorf("retention %s: the whole state loaded (%v)", r, rec.ops)
		}
		log := openExportLog(cfg, func(string) {}) // the working copy's record, as Plan reads it
		want, _ := plan.Build(cfg, whole, plan.Options{Now: now, Offline: true, ExportRecord: log.lookup})
		if diff := cmp.Diff(jsonOf(t, want), jsonOf(t, p)); diff != "" {
			t.Errorf("retention %s: the plan differs from the plan of the whole state (-whole +read):\n%s", r, diff)
		}
		if gone := p.Change(state.PeopleAddress) != nil; gone != (r < time.Hour) {
			t.Errorf("retention %s: people removed: %v", r, gone)
		}
	}
}
