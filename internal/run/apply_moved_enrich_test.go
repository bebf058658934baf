package run

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestApplyOfMovesWithPlacesLeftReadsInPart applies, over a partial
// state, the search and the enrich block renamed (moved blocks) with
// places left under a larger limit, whole or targeted. The apply holds
// the people its plan walked as the store holds them (plan.EnrichFacts.Hold)
// and folds the moves over them: the people are enriched at their new
// addresses as in TestApplyOfAnEnrichBlockReadsInPart, with no record
// at the old ones and no load of the state whole.
func TestApplyOfMovesWithPlacesLeftReadsInPart(t *testing.T) {
	moved := strings.NewReplacer(`search "s"`, `search "t"`, "search.s", "search.t", `enrich "contacts"`, `enrich "people"`).
		Replace(enrichConfig(10)) +
		"moved {\n  from = search.s\n  to   = search.t\n}\nmoved {\n  from = enrich.contacts\n  to   = enrich.people\n}\n"
	for _, targets := range [][]string{nil, {"enrich.people"}} {
		dir := t.TempDir()
		d, rec, _ := appliedIn(t, dir, enrichConfig(2))
		now := t0.Add(31 * 24 * time.Hour)
		d.Now = func() time.Time { return now }
		rec.ops = nil
		if err := Apply(context.Background(), d, ApplyOptions{Config: loadConfigText(t, dir, moved), Targets: targets, AutoApprove: true}, &recView{}); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(rec.ops, "load") {
			t.Errorf("targets %v: the whole state loaded (%v)", targets, rec.ops)
		}
		after, err := rec.Backend.Load()
		if err != nil {
			t.Fatal(err)
		}
		if got := enrichedAt(after, "enrich.people", now); got != 6 {
			t.Errorf("targets %v: %d people enriched at the apply's time, want 6", targets, got)
		}
		for id, p := range after.People {
			if slices.ContainsFunc(p.FoundBy, func(a string) bool { return strings.HasPrefix(a, "search.s[") }) ||
				p.Enrichment != nil && p.Enrichment.By == "enrich.contacts" {
				t.Errorf("targets %v: %s still at an old address (%v, %+v)", targets, id, p.FoundBy, p.Enrichment)
			}
		}
	}
}
