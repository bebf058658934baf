package run

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
)

// planView keeps the plan an apply shows.
type planView struct {
	recView
	shown *plan.Plan
}

func (v *planView) Plan(p *plan.Plan) { v.shown = p }

// TestApplyOfAnEnrichBlockReadsInPart applies an enrich block of the
// common kind over a state in the local database (plan.EnrichReadsOf), as
// TestPlanOfAnEnrichBlockAsksTheStore plans it: at its limit, with stale
// enrichments to refresh, the apply runs on a partial state (it loads no
// whole state) and refreshes them; with places left under a larger limit
// it enriches the people the store names for them too, and so with a
// limit as a safety cap (the census); with nothing to refresh the census
// tells the up-to-date members apart, as plan does. The plan
// it shows is the plan of the whole state, and its people are enriched at
// the apply's time.
func TestApplyOfAnEnrichBlockReadsInPart(t *testing.T) {
	for _, tt := range []struct {
		limit    int
		after    time.Duration
		loads    bool
		enriched int // at the apply's time
	}{
		{2, 31 * 24 * time.Hour, false, 2},         // two refreshes, the limit reached
		{10, 31 * 24 * time.Hour, false, 6},        // places left, taken by the people the store names
		{5_000_000, 31 * 24 * time.Hour, false, 6}, // a limit as a safety cap: the census reads the people to enrich
		{2, 24 * time.Hour, false, 0},              // nothing to refresh: up to date, the census counts
	} {
		dir := t.TempDir()
		rec := &recBackend{Backend: local.Open(filepath.Join(dir, ".leadsync", "state.db"))}
		d, _, _, _ := newDeps(t)
		d.Backend = seeThrough{rec}
		if err := Apply(context.Background(), d, ApplyOptions{Config: loadConfigText(t, dir, enrichConfig(2)), AutoApprove: true}, &recView{}); err != nil {
			t.Fatal(err)
		}
		whole, err := rec.Backend.Load()
		if err != nil {
			t.Fatal(err)
		}
		now := t0.Add(tt.after)
		d.Now = func() time.Time { return now }
		cfg := loadConfigText(t, dir, enrichConfig(tt.limit))
		want, _ := plan.Build(cfg, whole, plan.Options{Now: now, Targets: []string{"enrich.contacts"}})
		rec.ops = nil
		v := &planView{}
		if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, Targets: []string{"enrich.contacts"}, AutoApprove: true}, v); err != nil {
			t.Fatal(err)
		}
		if loaded := slices.Contains(rec.ops, "load"); loaded != tt.loads {
			t.Errorf("limit %d, %v later: the whole state loaded: %v, want %v (%v)", tt.limit, tt.after, loaded, tt.loads, rec.ops)
		}
		if v.shown == nil {
			t.Fatalf("limit %d: no plan shown", tt.limit)
		}
		// Its changes: the quota's figures are the billing call's.
		if diff := cmp.Diff(jsonOf(t, want.Changes), jsonOf(t, v.shown.Changes)); diff != "" {
			t.Errorf("limit %d: the plan shown differs from the plan of the whole state (-whole +applied):\n%s", tt.limit, diff)
		}
		after, err := rec.Backend.Load()
		if err != nil {
			t.Fatal(err)
		}
		if got := enrichedAt(after, "enrich.contacts", now); got != tt.enriched {
			t.Errorf("limit %d: %d people enriched at the apply's time, want %d", tt.limit, got, tt.enriched)
		}
	}
}

// enrichedAt counts the people of st whose enrichment block addr made at.
func enrichedAt(st *state.State, addr string, at time.Time) int {
	n := 0
	for _, p := range st.People {
		if e := p.Enrichment; e != nil && e.By == addr && e.EnrichedAt.Equal(at) {
			n++
		}
	}
	return n
}

// TestApplyOfSeveralEnrichBlocksReadsInPart applies two enrich blocks over
// overlapping searches (plan.EnrichReadsOf: enrichMany) as
// TestApplyOfAnEnrichBlockReadsInPart applies one: at their limits, each
// refreshing its stale enrichments, and with places left, which the
// people the store names take; and the second with a where (its census
// reads its people to enrich whole). The apply loads no whole state, the plan
// it shows is the whole state's, and it enriches the people that plan
// names.
func TestApplyOfSeveralEnrichBlocksReadsInPart(t *testing.T) {
	for _, tt := range []struct {
		contacts, leaders int // the limits
		where             string
		enriched          [2]int
	}{
		{2, 1, "", [2]int{2, 1}}, // at the limits: every enrichment is stale
		{4, 2, "", [2]int{4, 2}}, // places left in both
		{2, 3, "", [2]int{2, 3}}, // places left in the second only
		{4, 2, `lead.fullName != ""`, [2]int{4, 2}},
	} {
		dir := t.TempDir()
		rec := &recBackend{Backend: local.Open(filepath.Join(dir, ".leadsync", "state.db"))}
		d, _, _, _ := newDeps(t)
		d.Backend = seeThrough{rec}
		if err := Apply(context.Background(), d, ApplyOptions{Config: loadConfigText(t, dir, twoEnrichConfig(2, 1)), AutoApprove: true}, &recView{}); err != nil {
			t.Fatal(err)
		}
		whole, err := rec.Backend.Load()
		if err != nil {
			t.Fatal(err)
		}
		now := t0.Add(31 * 24 * time.Hour)
		d.Now = func() time.Time { return now }
		text := twoEnrichConfig(tt.contacts, tt.leaders)
		if tt.where != "" {
			text = strings.Replace(text, `refresh = "10d"`, `refresh = "10d"
  where   = `+tt.where, 1)
		}
		cfg := loadConfigText(t, dir, text)
		targets := []string{"enrich.contacts", "enrich.leaders"}
		want, _ := plan.Build(cfg, whole, plan.Options{Now: now, Targets: targets})
		rec.ops = nil
		v := &planView{}
		if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, Targets: targets, AutoApprove: true}, v); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(rec.ops, "load") {
			t.Errorf("limits %d and %d: the whole state loaded (%v)", tt.contacts, tt.leaders, rec.ops)
		}
		if v.shown == nil {
			t.Fatalf("limits %d and %d: no plan shown", tt.contacts, tt.leaders)
		}
		if diff := cmp.Diff(jsonOf(t, want.Changes), jsonOf(t, v.shown.Changes)); diff != "" {
			t.Errorf("limits %d and %d: the plan shown differs from the plan of the whole state (-whole +applied):\n%s", tt.contacts, tt.leaders, diff)
		}
		after, err := rec.Backend.Load()
		if err != nil {
			t.Fatal(err)
		}
		got := [2]int{enrichedAt(after, "enrich.contacts", now), enrichedAt(after, "enrich.leaders", now)}
		if got != tt.enriched {
			t.Errorf("limits %d and %d: %v people enriched at the apply's time, want %v", tt.contacts, tt.leaders, got, tt.enriched)
		}
	}
}

// twoEnrichConfig is enrichConfig with a second block, over the people of
// Hamburg, whose refresh is shorter.
func twoEnrichConfig(contacts, leaders int) string {
	return enrichConfig(contacts) + fmt.Sprintf(`
enrich "leaders" {
  from    = [search.s["Hamburg"]]
  limit   = %d
  refresh = "10d"
}
`, leaders)
}
