package plan

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// TestTrackMeetsAPersonInSketchOnce plans a track of the enriched whose
// block's two searches hold the same four people, read in sketch
// (Reads.Sketched): each is met by both searches (trackSeen) yet counted
// once, as the plan of the whole state counts them: four people, four
// reads, none "read by another track".
func TestTrackMeetsAPersonInSketchOnce(t *testing.T) {
	f := newFixture()
	f.search("search.a", kw("CTO"))
	f.search("search.b", kw("CEO"))
	people := ids(1, 4)
	f.ran("search.a", t0.Add(-day), people...)
	f.ran("search.b", t0.Add(-day), people...)
	f.enrich("enr", []string{"search.a", "search.b"}, 0, 0)
	for _, id := range people {
		f.enriched(id, "enrich.enr", t0.Add(-day))
	}
	tr := f.track("enr", 30*day, "enrich.enr")
	o := f.opts()
	o.Targets = []string{tr.Address}
	r := ReadsOf(f.cfg, state.NewBase(f.st).Records, o)
	if !r.Sketched {
		t.Fatalf("the track's people are not read in sketch: %+v", r)
	}
	st, err := r.Read(storedBase(f.st))
	if err != nil {
		t.Fatal(err)
	}
	if n := st.TrackSketches().Len(); n != len(people) {
		t.Fatalf("%d people in sketch, want %d", n, len(people))
	}
	got, diags := Build(f.cfg, st, o)
	if diags.HasErrors() {
		t.Fatalf("Build: %s", diags.Error())
	}
	c := got.Change(tr.Address)
	if c == nil || c.Calls != 4 || c.CallsMax != 4 || got.Totals.Tracks != 4 || got.Totals.QuotaCallsMax != 4 {
		t.Fatalf("the track of 4 people met twice each plans %+v, totals %+v: want 4 reads", c, got.Totals)
	}
	if want := "4 of 4 people due (every 30d); requests, no credits"; c.Detail != want || strings.Contains(c.Detail, "another track") {
		t.Errorf("detail %q, want %q", c.Detail, want)
	}
	if d := cmp.Diff(planJSON(t, f.build(t, o)), planJSON(t, got)); d != "" {
		t.Errorf("the plan over the sketches differs (-whole +read):\n%s", d)
	}
}
