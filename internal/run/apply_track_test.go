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

// TestApplyOfATrackReadsInPart applies a track of a search and of an
// import it watches (a CSV file of people of another search by network
// ID, and one new to the state) over a state in the local database, as
// TestPlanOfATrackAndAnImportLoadsNoState plans it, a month after a
// track of another search read its people: the apply runs on a partial
// state (it loads no whole state), imports the file and reads every
// person the plan names with a page name to read, those it read before
// and no longer in its sources among them, at the apply's time; then the
// track alone (targeted) a month later likewise. A file of page names the
// track watches does not either: its people are found by the store's
// index of page names (Reads.Pages). The plan shown is the plan of the
// whole state each time.
func TestApplyOfATrackReadsInPart(t *testing.T) {
	dir := t.TempDir()
	rec := &recBackend{Backend: local.Open(filepath.Join(dir, ".leadsync", "state.db"))}
	d, _, _, _ := newDeps(t)
	d.Backend = seeThrough{rec}
	for range 2 { // the searches, then the track's reads of their people
		cfg := loadTrackConfig(t, dir, `search.s["Hamburg"]`, "", "")
		if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, &recView{}); err != nil {
			t.Fatal(err)
		}
	}
	whole, err := rec.Backend.Load()
	if err != nil {
		t.Fatal(err)
	}
	byID, byPage := "ID,Email\n", "Page,Email\n"
	for _, id := range whole.Searches[`search.s["Munich"]`].LeadIDs[:2] {
		p := whole.People[id]
		byID += p.Lead.NetworkID + ",a" + p.Lead.NetworkID + "@crm.example\n"
		byPage += p.Lead.PageName + ",b" + p.Lead.NetworkID + "@crm.example\n"
	}
	byID += "99999.abc,new@crm.example\n"
	for i, tt := range []struct {
		columns, csv string
		targets      []string
		loads        bool
		tracked      int // the people the track read at the apply's time
	}{
		// Berlin's 3, the file's 2 known to the state (its new person has
		// no page name to read), Hamburg's 3 read before.
		{`network_id = "ID"`, byID, nil, false, 8},
		{`network_id = "ID"`, byID, []string{"track.t"}, false, 8},
		{`page_name = "Page"`, byPage, nil, false, 8},
	} {
		now := t0.Add(time.Duration(i+1) * 31 * 24 * time.Hour)
		d.Now = func() time.Time { return now }
		cfg := loadTrackConfig(t, dir, "", tt.columns, tt.csv)
		whole, err := rec.Backend.Load()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := plan.Build(cfg, whole, plan.Options{Now: now, Targets: tt.targets})
		rec.ops = nil
		v := &planView{}
		if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, Targets: tt.targets, AutoApprove: true}, v); err != nil {
			t.Fatal(err)
		}
		if loaded := slices.Contains(rec.ops, "load"); loaded != tt.loads {
			t.Errorf("case %d: the whole state loaded: %v, want %v (%v)", i, loaded, tt.loads, rec.ops)
		}
		if v.shown == nil {
			t.Fatalf("case %d: no plan shown", i)
		}
		if diff := cmp.Diff(jsonOf(t, want.Changes), jsonOf(t, v.shown.Changes)); diff != "" {
			t.Errorf("case %d: the plan shown differs from the plan of the whole state (-whole +applied):\n%s", i, diff)
		}
		after, err := rec.Backend.Load()
		if err != nil {
			t.Fatal(err)
		}
		if got := trackedAt(after, "track.t", now); got != tt.tracked {
			t.Errorf("case %d: %d people read by the track at the apply's time, want %d", i, got, tt.tracked)
		}
	}
}

// trackedAt counts the people of st the track at addr read at at.
func trackedAt(st *state.State, addr string, at time.Time) int {
	n := 0
	for _, p := range st.People {
		if r, ok := p.Tracked[addr]; ok && r.Equal(at) {
			n++
		}
	}
	return n
}
