package export

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestSummaryCountsChanges: the Summary counts the people of the export
// by what their history holds; an export of people without history has
// no such section (so that older workbooks read as before).
func TestSummaryCountsChanges(t *testing.T) {
	dir := t.TempDir()
	cfg, st := fixture("x.xlsx", &config.Sheet{Name: "CTOs", From: []string{"search.cto"}, Dedupe: true, Columns: []string{"pageName"}})
	cfg.Dir = dir
	summaryOf := func() map[string]string {
		t.Helper()
		if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, r := range rows(t, openXLSX(t, filepath.Join(dir, "x.xlsx")), "Summary") {
			if len(r) > 1 {
				out[r[0]] = r[1]
			}
		}
		return out
	}
	if got := summaryOf(); got["Changes in all"] != "" {
		t.Fatalf("a Summary of people without history counts changes: %q", got)
	}
	at := t1.Add(24 * time.Hour)
	p := st.People["n-5"]
	p.Enrichment = &state.Enrichment{EnrichedAt: t1, Result: person.EnrichedProfile{Email: "zoe@old.example", ValidationStatus: person.StatusValid}}
	p.History = []state.Drift{
		{Field: state.DriftTitle, Before: "CTO", After: "VP", At: at, By: "track.t", Call: state.CallTrack},
		{Field: state.DriftCompany, Before: "A", After: "B", At: at, By: "track.t", Call: state.CallTrack},
		{Field: state.DriftCompany, Before: "B", After: "C", At: at.Add(time.Hour), By: "search.cto", Call: state.CallSearch},
	}
	for _, id := range []string{"n-1", "n-2"} {
		if q := st.People[id]; q != nil {
			q.Status = state.StatusLeft
			q.History = []state.Drift{{Field: state.DriftStatus, Before: "public", After: "left", At: at, By: "track.t", Call: state.CallTrack}}
		}
	}
	got := summaryOf()
	for k, want := range map[string]string{"Changed title": "1", "Changed company": "1", "Changed location": "0", "Left the network": "2",
		"E-mail of a former employer": "1", "Changes in all": "5"} {
		if got[k] != want {
			t.Errorf("Summary %q = %q, want %q", k, got[k], want)
		}
	}
}
