package export

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

// TestSummaryRemainingRequestsSaysCallsSince: the Summary sheet gives the
// requests left as the service last said, and, as show does, how many
// calls that use the quota were made after it was read (here a search
// and an enrichment): at least that many fewer now.
func TestSummaryRemainingRequestsSaysCallsSince(t *testing.T) {
	dir := t.TempDir()
	cfg, st := fixture("x.xlsx", &config.Sheet{Name: "CTOs", From: []string{"search.cto"}, Dedupe: true, Columns: []string{"fullName"}})
	cfg.Dir = dir
	checked := t1.Add(-time.Hour)
	st.Usage.CheckedAt = &checked
	st.Searches[berlin].Generation = api.Gen1 // ran at t1, after the check
	st.Searches[hamburg].Generation = api.Gen1
	if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, filepath.Join(dir, "x.xlsx"))
	var row []string
	for _, r := range rows(t, f, "Summary") {
		if len(r) > 0 && r[0] == "Remaining requests this month" {
			row = r
		}
	}
	// Berlin's search and two enrichments (n-1, n-2 at t1) are after the
	// check; Hamburg's search (t0) is before it; the profile read of
	// generation 0 is not a first-generation call.
	want := []string{"Remaining requests this month", "9,114", "as of", "2026-11-20 17:45", "3 calls recorded since, so at least 3 fewer now"}
	if len(row) != len(want) {
		t.Fatalf("row %q, want %q", row, want)
	}
	for i := range want {
		if row[i] != want[i] {
			t.Errorf("cell %d = %q, want %q", i+1, row[i], want[i])
		}
	}
}

// TestQuotaCallsSince counts, after the check, every call of the monthly
// quota state records: first-generation searches, profile reads, track
// reads (a profile found, private or gone alike) and enrichments; not the
// second generation's, and nothing made before the check.
func TestQuotaCallsSince(t *testing.T) {
	check := statetest.Day(1)
	after := check.Add(time.Hour)
	read := func(at time.Time, id string, gen api.Generation, prof *person.Profile) state.Event {
		return state.Event{At: at, Kind: state.EventTrack, Address: "track.t", Track: &state.TrackEvent{
			PersonID: id, Generation: gen, Request: []byte(`{"pageName":"x"}`), Profile: prof, Gone: prof == nil}}
	}
	public := &person.Profile{FullName: "Ann", CurrentPosition: []person.Position{{JobTitle: "CTO", Company: "ACME"}}}
	private := &person.Profile{Private: true}
	base := []state.Event{
		statetest.SearchEv(statetest.Day(0), "search.a", 0, statetest.Lead("n1", "ann", "Ann"), statetest.Lead("n2", "bob", "Bob"),
			statetest.Lead("n3", "cleo", "Cleo"), statetest.Lead("n4", "dan", "Dan")),
	}
	for _, tc := range []struct {
		name   string
		events []state.Event
		want   int
	}{
		{"nothing since", nil, 0},
		{"a search and a profile read", []state.Event{statetest.SearchEv(after, "search.b", 0), statetest.ProfileEv(after, "profile.p", "max", "Max")}, 2},
		{"track reads: public, private, gone", []state.Event{read(after, "n1", api.Gen1, public), read(after, "n2", api.Gen1, private), read(after, "n3", api.Gen1, nil)}, 3},
		{"a track read before the check", []state.Event{read(check.Add(-time.Hour), "n1", api.Gen1, public)}, 0},
		{"a second-generation track read", []state.Event{read(after, "n1", api.Gen2, public)}, 0},
		{"track reads, an enrichment and a search", []state.Event{
			read(after, "n1", api.Gen1, public), read(after, "n4", api.Gen1, public),
			statetest.EnrichEv(after, "enrich.e", "n2", person.EnrichedProfile{NetworkID: "n2", Email: "b@x.io"}),
			statetest.SearchEv(after, "search.c", 0)}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := state.New()
			for _, e := range append(append([]state.Event(nil), base...), tc.events...) {
				if err := s.Fold(e); err != nil {
					t.Fatal(err)
				}
			}
			if got := QuotaCallsSince(s, check); got != tc.want {
				t.Errorf("QuotaCallsSince = %d, want %d", got, tc.want)
			}
		})
	}
}
