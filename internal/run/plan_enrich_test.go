package run

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/plan"
)

// TestPlanOfAnEnrichBlockAsksTheStore plans an enrich block of the common
// kind over a state in the local database (plan.EnrichReadsOf): at its
// limit, with stale enrichments to refresh, or with places left under a
// larger limit (the first people without an enrichment take them), the
// plan reads no whole state; nor with nothing to refresh at the limit,
// or a limit as a safety cap: it tells the members apart from the census
// of the enrichments (EnrichFacts.Recount). Each plan is the plan of the
// whole state.
func TestPlanOfAnEnrichBlockAsksTheStore(t *testing.T) {
	for _, tt := range []struct {
		limit int
		after time.Duration
		loads bool
	}{
		{2, 31 * 24 * time.Hour, false},    // two refreshes, the limit reached
		{2, 24 * time.Hour, false},         // nothing to refresh: up to date, from the census
		{5_000_000, 24 * time.Hour, false}, // a limit as a safety cap: the census
		{3, 24 * time.Hour, false},         // one place left: the first of four
		{3, 31 * 24 * time.Hour, false},    // two refreshes and one place
		{10, 31 * 24 * time.Hour, false},   // places for everyone
	} {
		dir := t.TempDir()
		d, rec, whole := appliedIn(t, dir, enrichConfig(2))
		now := t0.Add(tt.after)
		d.Now = func() time.Time { return now }
		cfg := loadConfigText(t, dir, enrichConfig(tt.limit))
		rec.ops = nil
		p, diags, err := Plan(context.Background(), d, PlanOptions{Config: cfg, Targets: []string{"enrich.contacts"}, Offline: true})
		if err != nil || diags.HasErrors() {
			t.Fatal(err, diags)
		}
		if loaded := slices.Contains(rec.ops, "load"); loaded != tt.loads {
			t.Errorf("limit %d, %v later: the whole state loaded: %v, want %v (%v)", tt.limit, tt.after, loaded, tt.loads, rec.ops)
		}
		want, _ := plan.Build(cfg, whole, plan.Options{Now: now, Targets: []string{"enrich.contacts"}, Offline: true})
		if diff := cmp.Diff(jsonOf(t, want), jsonOf(t, p)); diff != "" {
			t.Errorf("limit %d, %v later: the plan differs from the plan of the whole state (-whole +read):\n%s", tt.limit, tt.after, diff)
		}
	}
}

// enrichConfig is testConfig's searches with an enrich block of them.
func enrichConfig(limit int) string {
	return fmt.Sprintf(`
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
enrich "contacts" {
  from    = [search.s]
  limit   = %d
  refresh = "30d"
}
`, limit)
}
