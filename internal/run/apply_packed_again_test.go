package run

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestApplyRunsASearchAgainOverItsListReadPacked applies the enrich
// block's searches again with more results, over the partial state that
// read their lead lists packed. The fold of each call reads its list as
// LeadIDs first, so nothing is refused and no lead is lost.
func TestApplyRunsASearchAgainOverItsListReadPacked(t *testing.T) {
	for name, targets := range map[string][]string{"whole config": nil, "target": {"enrich.contacts"}} {
		t.Run(name, func(t *testing.T) { applyAgainWithMore(t, targets) })
	}
}

// applyAgainWithMore applies enrichConfig(2), then, 31 days later and
// with targets, the same searches with max_results = 5: each list holds
// the 3 leads of the first run and 2 more.
func applyAgainWithMore(t *testing.T, targets []string) {
	dir := t.TempDir()
	d, rec, _ := appliedIn(t, dir, enrichConfig(2))
	now := t0.Add(31 * 24 * time.Hour)
	d.Now = func() time.Time { return now }
	cfg := loadConfigText(t, dir, strings.Replace(enrichConfig(2), "max_results = 3", "max_results = 5", 1))
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, Targets: targets, AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
	after, err := rec.Backend.Load()
	if err != nil {
		t.Fatal(err)
	}
	if err := after.Check(); err != nil {
		t.Errorf("the state after the second apply: %v", err)
	}
	if len(after.Searches) != 2 {
		t.Fatalf("%d searches, want 2", len(after.Searches))
	}
	for addr, sr := range after.Searches {
		if len(sr.LeadIDs) != 5 || sr.Runs != 2 || sr.Added != 2 {
			t.Errorf("%s holds %d leads, runs %d, added %d; want 5, 2 and 2", addr, len(sr.LeadIDs), sr.Runs, sr.Added)
		}
		for _, id := range sr.LeadIDs {
			if p := after.People[id]; p == nil || !slices.Contains(p.FoundBy, addr) {
				t.Errorf("%s lists %s, who is not found by it", addr, id)
			}
		}
	}
}
