package export

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
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
