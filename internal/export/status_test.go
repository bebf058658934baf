package export

import (
	"path/filepath"
	"testing"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestEmptyStatusReadsNotFound: the service's validation status "empty"
// (no e-mail found) reads "not found" where marketing reads it, in the
// cells of XLSX and CSV and in the Summary's counts; state keeps the
// service's word.
func TestEmptyStatusReadsNotFound(t *testing.T) {
	for _, path := range []string{"x.xlsx", "x.csv"} {
		t.Run(path, func(t *testing.T) {
			dir := t.TempDir()
			cfg, st := fixture(path, &config.Sheet{Name: "CTOs", From: []string{"search.cto"}, Dedupe: true, Columns: []string{"pageName", "validationStatus"}})
			cfg.Dir = dir
			st.People["n-5"].Enrichment = &state.Enrichment{EnrichedAt: t1, Result: person.EnrichedProfile{ValidationStatus: person.StatusEmpty}}
			if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
				t.Fatal(err)
			}
			var sheet, summary [][]string
			if path == "x.xlsx" {
				f := openXLSX(t, filepath.Join(dir, path))
				sheet, summary = rows(t, f, "CTOs"), rows(t, f, "Summary")
			} else {
				sheet, summary = readCSV(t, filepath.Join(dir, path), false), readCSV(t, filepath.Join(dir, "x.summary.csv"), false)
			}
			status := map[string]string{}
			for _, r := range sheet[1:] {
				status[r[0]] = ""
				if len(r) > 1 { // a trailing empty cell is not read back
					status[r[0]] = r[1]
				}
			}
			if status["zoe"] != "not found" || status["Jürgen_Müller"] != "valid" || status["maryam"] != "" {
				t.Errorf("statuses %q: want zoe not found, Jürgen valid, maryam (never enriched) empty", status)
			}
			counts := map[string]string{}
			for _, r := range summary {
				if len(r) > 1 {
					counts[r[0]] = r[1]
				}
			}
			if counts["not found"] != "1" || counts["empty"] != "" {
				t.Errorf("Summary counts %q: want a row \"not found\" of 1 and none called empty", counts)
			}
			if st.People["n-5"].Enrichment.Result.ValidationStatus != person.StatusEmpty {
				t.Error("the state's status changed")
			}
		})
	}
}
