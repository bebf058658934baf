package export

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteSamples writes the fixture's exports (XLSX and CSV) and a
// synthetic sheet, and reads every file back: each holds the rows Write
// says it wrote. The files go to a temporary folder, or to the folder
// LEADSYNC_EXPORT_SAMPLES names, to be opened in a spreadsheet program by
// hand (there the synthetic sheet has 100,000 rows instead of 1,000):
//
//	LEADSYNC_EXPORT_SAMPLES=/tmp/samples go test -run WriteSamples ./internal/export/
//	soffice --headless --convert-to csv --outdir /tmp/samples/csv /tmp/samples/*.xlsx
func TestWriteSamples(t *testing.T) {
	dir, synthetic := os.Getenv("LEADSYNC_EXPORT_SAMPLES"), 100_000
	if dir == "" {
		dir, synthetic = t.TempDir(), 1_000
	}
	var written []Written
	for _, path := range []string{"fixture.xlsx", "fixture.csv"} {
		cfg, st := fixture(path, marketingSheets()...)
		cfg.Dir = dir
		w, err := writeExports(cfg, st, Options{Now: fixedNow, BOM: true})
		if err != nil {
			t.Fatal(err)
		}
		written = append(written, w...)
	}
	w, err := writeSynthetic(filepath.Join(dir, "synthetic.xlsx"), synthetic, fixedAt)
	if err != nil {
		t.Fatal(err)
	}
	written = append(written, w)
	if len(written) != 5 { // fixture.xlsx; two sheets and a summary in CSV; synthetic.xlsx
		t.Fatalf("wrote %+v", written)
	}
	for _, w := range written {
		switch filepath.Ext(w.Path) {
		case ".csv":
			if w.Summary {
				if len(readCSV(t, w.Path, true)) < 10 {
					t.Errorf("%s: a summary of fewer than 10 rows", w.Path)
				}
				continue
			}
			if got := len(readCSV(t, w.Path, true)) - 1; got != w.Rows {
				t.Errorf("%s: %d rows, Write said %d", w.Path, got, w.Rows)
			}
		case ".xlsx":
			f := openXLSX(t, w.Path)
			sheets, total := f.GetSheetList(), 0
			if len(sheets) != w.Sheets+1 || sheets[0] != summarySheet {
				t.Errorf("%s: sheets %q, want the Summary and %d", w.Path, sheets, w.Sheets)
			}
			for _, sh := range sheets[1:] {
				total += len(rows(t, f, sh)) - 1
			}
			if total != w.Rows {
				t.Errorf("%s: %d rows, Write said %d", w.Path, total, w.Rows)
			}
		}
	}
}
