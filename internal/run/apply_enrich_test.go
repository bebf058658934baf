package run

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
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
// tells the up-to-date members apart, as plan does. With an exclude
// block naming a person to refresh and one to enrich, and without a
// limit (the census), it reads in part too and enriches neither. The
// plan it shows is the plan of the whole state, and its people are
// enriched at the apply's time.
func TestApplyOfAnEnrichBlockReadsInPart(t *testing.T) {
	for _, tt := range []struct {
		limit    int
		after    time.Duration
		loads    bool
		enriched int // at the apply's time
		exclude  bool
		// refreshOn adds refresh_on = ["company"] to the block.
		refreshOn bool
	}{
		{2, 31 * 24 * time.Hour, false, 2, false, false},         // two refreshes, the limit reached
		{10, 31 * 24 * time.Hour, false, 6, false, false},        // places left, taken by the people the store names
		{5_000_000, 31 * 24 * time.Hour, false, 6, false, false}, // a limit as a safety cap: the census reads the people to enrich
		{2, 24 * time.Hour, false, 0, false, false},              // nothing to refresh: up to date, the census counts
		{2, 31 * 24 * time.Hour, false, 1, true, false},          // at the limit: the excluded person is not refreshed
		{10, 31 * 24 * time.Hour, false, 4, true, false},         // places left: neither excluded person is enriched
		{0, 31 * 24 * time.Hour, false, 4, true, false},          // no limit: the census, less the excluded
		{2, 31 * 24 * time.Hour, false, 2, false, true},          // refresh_on: the census
		{10, 31 * 24 * time.Hour, false, 6, false, true},         // refresh_on with places left
	} {
		dir := t.TempDir()
		d, rec, whole := appliedIn(t, dir, enrichConfig(2))
		now := t0.Add(tt.after)
		d.Now = func() time.Time { return now }
		var cfg *config.Config
		switch {
		case tt.exclude:
			cfg = excludeTwo(t, dir, whole, tt.limit)
		case tt.refreshOn:
			cfg = loadConfigText(t, dir, strings.Replace(enrichConfig(tt.limit), "  refresh = ", "  refresh_on = [\"company\"]\n  refresh = ", 1))
		default:
			cfg = loadConfigText(t, dir, enrichConfig(tt.limit))
		}
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
		if n := want.Savings.Excluded.People; tt.exclude && n != 2 {
			t.Errorf("limit %d: %d people excluded, want 2", tt.limit, n)
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

// excludeTwo is enrichConfig(limit) (no limit line for 0) with an exclude
// block by page name of two people of whole: the first holding an
// enrichment and the first holding none.
func excludeTwo(t *testing.T, dir string, whole *state.State, limit int) *config.Config {
	t.Helper()
	src := enrichConfig(limit)
	if limit == 0 {
		src = strings.Replace(src, "  limit   = 0\n", "", 1)
	}
	return excludeTwoIn(t, dir, whole, src)
}

// excludeTwoIn is the configuration src with excludeTwo's exclude block.
func excludeTwoIn(t *testing.T, dir string, whole *state.State, src string) *config.Config {
	t.Helper()
	var enriched, plain string
	for _, id := range slices.Sorted(maps.Keys(whole.People)) {
		p := whole.People[id]
		switch {
		case p.Enrichment != nil && enriched == "":
			enriched = p.Lead.PageName
		case p.Enrichment == nil && plain == "":
			plain = p.Lead.PageName
		}
	}
	src += "exclude \"two\" {\n  file = \"two.csv\"\n  column = \"Page\"\n  by = \"page_name\"\n}\n"
	fs := fstest.MapFS{"main.leads.hcl": {Data: []byte(src)}, "two.csv": {Data: []byte("Page\n" + enriched + "\n" + plain + "\n")}}
	cfg, diags := config.Load(config.LoadOptions{Dir: dir, FS: fs})
	if diags.HasErrors() {
		t.Fatal(diags.Errs())
	}
	return cfg
}

// TestApplyOfSeveralEnrichBlocksReadsInPart applies two enrich blocks over
// overlapping searches (plan.EnrichReadsOf: enrichMany) as
// TestApplyOfAnEnrichBlockReadsInPart applies one: at their limits, each
// refreshing its stale enrichments, and with places left, which the
// people the store names take; and the second with a where (its census
// reads its people to enrich whole); and with excludeTwo's exclude block
// (the people it may name read whole), no limit (a census), and
// refresh_on. The apply loads no whole state, the plan
// it shows is the whole state's, and it enriches the people that plan
// names.
func TestApplyOfSeveralEnrichBlocksReadsInPart(t *testing.T) {
	for _, tt := range []struct {
		contacts, leaders int // the limits
		where             string
		enriched          [2]int
		exclude           bool // excludeTwo's block
		refreshOn         bool // refresh_on = ["company"] in the first block
	}{
		{2, 1, "", [2]int{2, 1}, false, false}, // at the limits: every enrichment is stale
		{4, 2, "", [2]int{4, 2}, false, false}, // places left in both
		{2, 3, "", [2]int{2, 3}, false, false}, // places left in the second only
		{4, 2, `lead.fullName != ""`, [2]int{4, 2}, false, false},
		// Both people excluded are of Hamburg: the second block refreshes
		// and enriches no one, as the whole state's plan says.
		{2, 1, "", [2]int{2, 0}, true, false},
		{4, 2, "", [2]int{4, 0}, true, false},
		// No limit (0: the line removed): the first block enriches every
		// candidate, from its census; the second claims none of them.
		{0, 1, "", [2]int{6, 0}, false, false},
		{0, 2, "", [2]int{4, 0}, true, false},
		// refresh_on: the census of the first block, as for one.
		{2, 1, "", [2]int{2, 1}, false, true},
		{4, 2, "", [2]int{4, 0}, true, true},
	} {
		dir := t.TempDir()
		d, rec, whole := appliedIn(t, dir, twoEnrichConfig(2, 1))
		now := t0.Add(31 * 24 * time.Hour)
		d.Now = func() time.Time { return now }
		text := twoEnrichConfig(tt.contacts, tt.leaders)
		if tt.contacts == 0 {
			text = strings.Replace(text, "  limit   = 0\n", "", 1)
		}
		if tt.refreshOn {
			text = strings.Replace(text, "  refresh = ", "  refresh_on = [\"company\"]\n  refresh = ", 1)
		}
		if tt.where != "" {
			text = strings.Replace(text, `refresh = "10d"`, `refresh = "10d"
  where   = `+tt.where, 1)
		}
		cfg := loadConfigText(t, dir, text)
		if tt.exclude {
			cfg = excludeTwoIn(t, dir, whole, text)
		}
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
		if n := want.Savings.Excluded.People; tt.exclude && n != 2 {
			t.Errorf("limits %d and %d: %d people excluded, want 2", tt.contacts, tt.leaders, n)
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

// TestApplyBoundsAsPlanWithAnotherBlocksSourceRun applies two enrich
// blocks over the state one apply of twoEnrichConfig(2, 1) made, in
// small worlds: each block's limit and refresh, a city added (a source of
// the first block alone runs) and the time. The apply reads a block's
// packed sketches whole; each is counted once, as the plan of the whole
// state counts it: the plan the apply shows is the whole state's. The
// first worlds are those where they were counted twice: only the second
// block refreshes.
func TestApplyBoundsAsPlanWithAnotherBlocksSourceRun(t *testing.T) {
	worlds := []applyWorld{{2, 1, false, true, true, 31}, {2, 2, false, true, true, 31}, {2, 3, false, true, true, 31}}
	rnd := rand.New(rand.NewPCG(14, 25))
	for range 6 {
		worlds = append(worlds, applyWorld{rnd.IntN(5), 1 + rnd.IntN(3), rnd.IntN(2) == 0, rnd.IntN(2) == 0, rnd.IntN(2) == 0, 11 + rnd.IntN(40)})
	}
	for _, w := range worlds {
		dir := t.TempDir()
		d, _, whole := appliedIn(t, dir, twoEnrichConfig(2, 1))
		now := t0.Add(time.Duration(w.days) * 24 * time.Hour)
		d.Now = func() time.Time { return now }
		cfg := loadConfigText(t, dir, w.config())
		want, _ := plan.Build(cfg, whole, plan.Options{Now: now})
		v := &planView{}
		if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, v); err != nil {
			t.Fatalf("%+v: %v", w, err)
		}
		if v.shown == nil {
			t.Fatalf("%+v: no plan shown", w)
		}
		if diff := cmp.Diff(jsonOf(t, want.Changes), jsonOf(t, v.shown.Changes)); diff != "" {
			t.Errorf("%+v: the plan shown differs from the plan of the whole state (-whole +applied):\n%s", w, diff)
		}
	}
}

// applyWorld is a configuration of twoEnrichConfig's blocks: their limits
// (contacts 0: the line removed), whether each refreshes, whether Munich
// is searched too, and the days since t0 it is applied at.
type applyWorld struct {
	contacts, leaders               int
	contactsRefresh, leadersRefresh bool
	munich                          bool
	days                            int
}

// config is w's configuration text.
func (w applyWorld) config() string {
	text := twoEnrichConfig(w.contacts, w.leaders)
	if w.contacts == 0 {
		text = strings.Replace(text, "  limit   = 0\n", "", 1)
	}
	if !w.contactsRefresh {
		text = strings.Replace(text, "  refresh = \"30d\"\n", "", 1)
	}
	if !w.leadersRefresh {
		text = strings.Replace(text, "  refresh = \"10d\"\n", "", 1)
	}
	if w.munich {
		text = strings.Replace(text, `["Berlin", "Hamburg"]`, `["Berlin", "Hamburg", "Munich"]`, 1)
	}
	return text
}
