package run

import (
	"context"
	"database/sql"
	"errors"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"path/filepath"

	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/testenv"
)

// gcView keeps the collector's GOGC when the apply shows its plan.
type gcView struct {
	planView
	shownAt int
}

func (v *gcView) Plan(p *plan.Plan) { v.shownAt = testenv.GCPercent(); v.planView.Plan(p) }

// TestApplySetsTheCollectorBack applies, with applyGCPeople 1, a track of
// the enriched, alone and beside its enrich block at its limit
// (partialApplyOf): GOGC is applyGCPercent while the plan is shown, and
// it is set back after the apply, whether it ends well or its
// confirmation fails.
func TestApplySetsTheCollectorBack(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer func(n int) { applyGCPeople = n }(applyGCPeople)
	t.Setenv("GOGC", "")
	for _, targets := range [][]string{{"track.t"}, nil, {"enrich.contacts", "track.t"}} {
		for _, fails := range []bool{false, true} {
			d, opts, _ := partialApplyOf(t, targets)
			applyGCPeople = 1
			debug.SetGCPercent(100)
			v := &gcView{}
			opts.AutoApprove = !fails
			opts.Confirm = func() (bool, error) { return false, errors.New("no terminal") }
			err := Apply(context.Background(), d, opts, v)
			if (err != nil) != fails {
				t.Fatalf("%q, confirmation fails %v: %v", targets, fails, err)
			}
			if v.shownAt != applyGCPercent {
				t.Errorf("%q, confirmation fails %v: GOGC %d as the plan was shown, want %d", targets, fails, v.shownAt, applyGCPercent)
			}
			if got := testenv.GCPercent(); got != 100 {
				t.Errorf("%q, confirmation fails %v: GOGC %d after the apply, want it back at 100", targets, fails, got)
			}
			applyGCPeople = 1_000_000
		}
	}
}

// partialApplyOf is the Deps of a state in the local database whose
// enrich block enriched its people a month before, and the options of an
// apply that runs on a partial state holding them in sketch: a track of
// the enriched targeted, or beside its block (targets), at its limit with
// stale enrichments to refresh. path is the state database's.
func partialApplyOf(t *testing.T, targets []string) (d Deps, opts ApplyOptions, path string) {
	t.Helper()
	dir := t.TempDir()
	d, _, _ = appliedIn(t, dir, enrichConfig(2))
	d.Now = func() time.Time { return t0.Add(31 * 24 * time.Hour) }
	cfg := loadConfigText(t, dir, enrichConfig(2)+"track \"t\" {\n  from  = [enrich.contacts]\n  every = \"30d\"\n}\n")
	return d, ApplyOptions{Config: cfg, Targets: targets}, filepath.Join(dir, ".leadsync", "state.db")
}

// TestApplySetsTheCollectorBackWhenAReadFails applies, with applyGCPeople
// 1, partialApplyOf's enrich block beside a track of the enriched over a
// state database whose enriched people's rows no longer read whole
// (damageEnriched). The plan reads them in sketch, and the partial state
// is read at applyGCPercent; the read of those people whole then fails
// (partialEnrich). The apply says so and sets GOGC back.
func TestApplySetsTheCollectorBackWhenAReadFails(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer func(n int) { applyGCPeople = n }(applyGCPeople)
	t.Setenv("GOGC", "")
	d, opts, db := partialApplyOf(t, nil)
	damaged := damageEnriched(t, db)
	applyGCPeople = 1
	debug.SetGCPercent(100)
	opts.AutoApprove = true
	err := Apply(context.Background(), d, opts, &gcView{})
	if err == nil || !strings.Contains(err.Error(), damaged) {
		t.Fatalf("an apply reading the damaged row of %s: %v", damaged, err)
	}
	if got := testenv.GCPercent(); got != 100 {
		t.Errorf("GOGC %d after the apply, want it back at 100", got)
	}
}

// damageEnriched damages the found_by column of the people holding an
// enrichment in the state database at path, and gives the first's ID.
func damageEnriched(t *testing.T, path string) string {
	t.Helper()
	st, err := local.Open(path).Load()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for id, p := range st.People {
		if p.Enrichment != nil {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, id := range ids {
		if _, err := db.Exec(`UPDATE people SET found_by = '{' WHERE id = ?`, id); err != nil {
			t.Fatal(err)
		}
	}
	if len(ids) == 0 {
		t.Fatal("nobody enriched")
	}
	return ids[0]
}
