package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
)

// TestQuotaRefusalSaysHowToGoOn: the refusal of a plan that would leave
// fewer requests than min_remaining_requests says how to go on: wait for
// the quota to reset, on the date the billing month turns when the
// service's invoicing start date tells it (the billing call's, else the
// one state recorded), or lower the setting to a figure that lets the plan
// through; and it never makes up a date it does not know.
func TestQuotaRefusalSaysHowToGoOn(t *testing.T) {
	tests := []struct {
		name      string
		usageDate string // the billing call's invoicing start date
		stateDate string // the one state recorded before
		rem       int    // requests left; 100 when 0
		want      []string
		notWanted []string
	}{
		{name: "the invoicing day is known", usageDate: "2024-03-15",
			want: []string{"wait until the quota resets on 2026-12-15 (the billing month starts on the 15th, from the invoicing start date 2024-03-15)", "lower min_remaining_requests in the api block to 96 or less"}},
		{name: "the day is the 1st, known from state", stateDate: "2026-03-01",
			want: []string{"wait until the quota resets on 2026-12-01 (the billing month starts on the 1st, from the invoicing start date 2026-03-01)"}},
		{name: "the 31st in a shorter month", usageDate: "2025-01-31",
			want: []string{"resets on 2026-11-30 (the billing month starts on the 31st, or the last day of a shorter month"}},
		{name: "the plan needs more than are left", usageDate: "2024-03-15", rem: 2,
			want:      []string{"wait until the quota resets on 2026-12-15", "this plan may need 2 requests more than are left, so lowering min_remaining_requests cannot let it through"},
			notWanted: []string{"to -2 or less"}},
		{name: "unknown", want: []string{"wait until the monthly quota resets (when is not known: the service gave no invoicing start date)", "lower min_remaining_requests"},
			notWanted: []string{"on 20"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			f.cfg.API.MinRemainingRequests = 100
			for _, city := range []string{"A", "B", "C", "D"} {
				f.search(`search.cto["`+city+`"]`, kw("CTO", "city", city))
			}
			f.st.Usage.InvoicingStartDate = tt.stateDate
			o := f.opts()
			rem := tt.rem
			if rem == 0 {
				rem = 100
			}
			o.Usage = &api.Usage{RemainingRequests: rem, InvoicingStartDate: tt.usageDate}
			_, diags := Build(f.cfg, f.st, o)
			if !diags.HasErrors() {
				t.Fatal("not refused")
			}
			d := diags[0].Detail
			if testing.Verbose() {
				t.Log(d)
			}
			for _, w := range tt.want {
				if !strings.Contains(d, w) {
					t.Errorf("refusal lacks %q:\n%s", w, d)
				}
			}
			for _, w := range tt.notWanted {
				if strings.Contains(d, w) {
					t.Errorf("refusal has %q:\n%s", w, d)
				}
			}
		})
	}
}

// TestQuotaRefusalAdviceForTracks: when track reads count against the
// quota, the refusal also says how to read fewer: a longer every, a plan
// of other blocks with --target, and (for a track that still watches
// people its sources no longer hold) state rm track.X; without a track
// reading, it says nothing of tracks.
func TestQuotaRefusalAdviceForTracks(t *testing.T) {
	f := newFixture()
	f.cfg.API.MinRemainingRequests = 100
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-40*day), ids(1, 3)...)
	f.track("champions", 30*day, "search.cto")
	for _, id := range ids(1, 3) {
		f.trackRead("track.champions", id, t0.Add(-35*day), "CTO", "Co "+id, false)
	}
	f.ran("search.cto", t0.Add(-time.Hour), ids(1, 2)...) // the third left the search
	o := f.opts()
	o.Usage = &api.Usage{RemainingRequests: 101}
	_, diags := Build(f.cfg, f.st, o)
	if !diags.HasErrors() {
		t.Fatal("not refused")
	}
	d := diags[0].Detail
	if testing.Verbose() {
		t.Log(d)
	}
	for _, w := range []string{
		"Lower a limit or max_results, read tracked people less often with a longer every (track.champions reads each person once per 30d)",
		"plan part of the work with --target (a plan that does not target track.champions makes none of its reads)",
		"stop track.champions watching the 1 person its sources no longer hold (leadsync state rm track.champions: its sources' people are then its only people, and fall due again)",
	} {
		if !strings.Contains(d, w) {
			t.Errorf("refusal lacks %q:\n%s", w, d)
		}
	}

	// A track that reads nobody this time: no advice about tracks.
	f = newFixture()
	f.cfg.API.MinRemainingRequests = 100
	f.search(`search.cto["A"]`, kw("CTO", "city", "A"))
	f.track("champions", 30*day, "search.cto")
	o = f.opts()
	o.Usage = &api.Usage{RemainingRequests: 100}
	_, diags = Build(f.cfg, f.st, o)
	if !diags.HasErrors() {
		t.Fatal("not refused")
	}
	if d := diags[0].Detail; strings.Contains(d, "every") || strings.Contains(d, "track.champions") {
		t.Errorf("advice about a track that reads nobody:\n%s", d)
	}
}
