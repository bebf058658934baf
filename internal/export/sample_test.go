package export

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteSamples writes the fixture's exports and a synthetic sheet into
// the folder named by LEADSYNC_EXPORT_SAMPLES, to open them in a spreadsheet
// program by hand (or convert them with LibreOffice); skipped otherwise.
//
//	LEADSYNC_EXPORT_SAMPLES=/tmp/samples go test -run WriteSamples ./internal/export/
//	soffice --headless --convert-to csv --outdir /tmp/samples/csv /tmp/samples/*.xlsx
func TestWriteSamples(t *testing.T) {
	dir := os.Getenv("LEADSYNC_EXPORT_SAMPLES")
	if dir == "" {
		t.Skip("set LEADSYNC_EXPORT_SAMPLES to a folder to write samples")
	}
	for _, path := range []string{"fixture.xlsx", "fixture.csv"} {
		cfg, st := fixture(path, marketingSheets()...)
		cfg.Dir = dir
		if _, err := writeExports(cfg, st, Options{Now: fixedNow, BOM: true}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := writeSynthetic(filepath.Join(dir, "synthetic-100k.xlsx"), 100_000, fixedAt); err != nil {
		t.Fatal(err)
	}
}
