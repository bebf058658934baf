package run

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state/local"
)

// TestPlanWithMovedBlocksLoadsNoState plans moved blocks over a state in
// the local database: a renamed search block (both instances) and one
// instance given another key. The plan resolves the moves from the
// store's counts (plan.MovesOf) and reads the lead lists under their old
// addresses, never the whole state, and is the whole state's plan.
func TestPlanWithMovedBlocksLoadsNoState(t *testing.T) {
	dir := t.TempDir()
	rec := &recBackend{Backend: local.Open(filepath.Join(dir, ".leadsync", "state.db"))}
	d, _, _, _ := newDeps(t)
	d.Backend = seeThrough{rec}
	if err := Apply(context.Background(), d, ApplyOptions{Config: loadConfig(t, dir), AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
	whole, err := rec.Backend.Load()
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"block renamed": strings.ReplaceAll(testConfig, "search.s", "search.t") + "moved {\n  from = search.s\n  to   = search.t\n}\n",
		"instance":      strings.Replace(testConfig, `"Hamburg"`, `"Munich"`, 1) + "moved {\n  from = search.s[\"Hamburg\"]\n  to   = search.s[\"Munich\"]\n}\n",
	} {
		if name == "block renamed" {
			text = strings.Replace(text, `search "s"`, `search "t"`, 1)
		}
		cfg := loadConfigText(t, dir, text)
		rec.ops = nil
		p, diags, err := Plan(context.Background(), d, PlanOptions{Config: cfg, Offline: true})
		if err != nil || diags.HasErrors() {
			t.Fatal(name, err, diags)
		}
		if slices.Contains(rec.ops, "load") {
			t.Errorf("%s: the whole state loaded (%v)", name, rec.ops)
		}
		log := openExportLog(cfg, func(string) {})
		want, _ := plan.Build(cfg, whole, plan.Options{Now: d.now(), Offline: true, ExportRecord: log.lookup})
		if diff := cmp.Diff(jsonOf(t, want), jsonOf(t, p)); diff != "" {
			t.Errorf("%s: the plan differs from the plan of the whole state (-whole +read):\n%s", name, diff)
		}
		if want.Totals.Moves == 0 {
			t.Errorf("%s: nothing moved", name)
		}
	}
}

// TestApplyOfMovesReadsInPart applies a renamed search block on a
// partial state: no load of the state whole, however many people the
// moves name (the store renames them: state.Changes.Renames), and the
// block's records at its new address.
func TestApplyOfMovesReadsInPart(t *testing.T) {
	renamed := strings.Replace(strings.ReplaceAll(testConfig, "search.s", "search.t"), `search "s"`, `search "t"`, 1) +
		"moved {\n  from = search.s\n  to   = search.t\n}\n"
	dir := t.TempDir()
	rec := &recBackend{Backend: local.Open(filepath.Join(dir, ".leadsync", "state.db"))}
	d, _, _, _ := newDeps(t)
	d.Backend = seeThrough{rec}
	if err := Apply(context.Background(), d, ApplyOptions{Config: loadConfig(t, dir), AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
	rec.ops = nil
	if err := Apply(context.Background(), d, ApplyOptions{Config: loadConfigText(t, dir, renamed), AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
	if slices.Contains(rec.ops, "load") {
		t.Errorf("the whole state loaded (%v)", rec.ops)
	}
	after, err := rec.Backend.Load()
	if err != nil {
		t.Fatal(err)
	}
	if after.Searches[`search.t["Berlin"]`] == nil || after.Searches[`search.s["Berlin"]`] != nil {
		t.Errorf("the search did not move")
	}
	for id, p := range after.People {
		if slices.ContainsFunc(p.FoundBy, func(a string) bool { return strings.HasPrefix(a, "search.s[") }) {
			t.Errorf("person %s is still found by %v", id, p.FoundBy)
		}
	}
}
