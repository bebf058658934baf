package run

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
)

// TestApplyReadsTheListsItPlansPacked applies an enrich block at its
// limit over a state in the local database, as
// TestApplyOfAnEnrichBlockReadsInPart does. The partial state it runs on
// holds its sources' lead lists packed (State.ReadLeadsPacked), as the
// plan reads them. None is read as LeadIDs, and each gives the list the
// store holds.
func TestApplyReadsTheListsItPlansPacked(t *testing.T) {
	dir := t.TempDir()
	d, _, whole := appliedIn(t, dir, enrichConfig(2))
	cfg := loadConfigText(t, dir, enrichConfig(2))
	now := t0.Add(31 * 24 * time.Hour)
	d.Now = func() time.Time { return now }
	in, err := applyState(d, ApplyOptions{Config: cfg, Targets: []string{"enrich.contacts"}}, func(*state.State) {})
	if err != nil {
		t.Fatal(err)
	}
	defer in.release()
	if in.facts == nil || len(whole.Searches) != 2 {
		t.Fatalf("the apply read in part: %v, %d searches; want true and 2", in.facts != nil, len(whole.Searches))
	}
	for addr, sr := range whole.Searches {
		got := in.st.Searches[addr]
		if leads := got.Leads(); got.LeadIDs != nil || !leads.Packed() || !slices.Equal(leads.Strings(), sr.LeadIDs) {
			t.Errorf("%s: LeadIDs %v, packed %v, leads %v; want nil, true and %v", addr, got.LeadIDs, leads.Packed(), leads.Strings(), sr.LeadIDs)
		}
	}
}

// appliedIn is the state in the local database of dir that one apply of
// the configuration src made: the Deps that applied it, whose backend
// notes its operations (rec), and the state loaded whole.
func appliedIn(t *testing.T, dir, src string) (Deps, *recBackend, *state.State) {
	t.Helper()
	rec := &recBackend{Backend: local.Open(filepath.Join(dir, ".leadsync", "state.db"))}
	d, _, _, _ := newDeps(t)
	d.Backend = seeThrough{rec}
	if err := Apply(context.Background(), d, ApplyOptions{Config: loadConfigText(t, dir, src), AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
	whole, err := rec.Backend.Load()
	if err != nil {
		t.Fatal(err)
	}
	return d, rec, whole
}
