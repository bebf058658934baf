package export

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkXLSXMillionRows writes 1,000,000 rows of 12 columns to XLSX, the
// goal of issue 6 (under 20 s and 250 MB peak memory). Run it alone:
//
//	/usr/bin/time -v go test -run '^$' -bench XLSXMillionRows -benchtime 1x ./internal/export/
//
// ("Maximum resident set size" is the peak; the test binary is its own
// process, so the figure covers the writer, not the go command.)
func BenchmarkXLSXMillionRows(b *testing.B) {
	benchmarkXLSX(b, 1_000_000)
}

// BenchmarkXLSX10kRows is the same at 10,000 rows, quick enough to run
// often.
func BenchmarkXLSX10kRows(b *testing.B) {
	benchmarkXLSX(b, 10_000)
}

func benchmarkXLSX(b *testing.B, rows int) {
	dir := b.TempDir()
	path := filepath.Join(dir, "bench.xlsx")
	b.ReportAllocs()
	for b.Loop() {
		w, err := WriteSynthetic(path, rows, fixedAt)
		if err != nil {
			b.Fatal(err)
		}
		if w.Rows != rows {
			b.Fatalf("rows = %d", w.Rows)
		}
	}
	if fi, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(fi.Size())/1e6, "MB/file")
	}
}

func TestWriteSyntheticReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.xlsx")
	if _, err := WriteSynthetic(path, 50, fixedAt); err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, path)
	r := rows(t, f, "Leads")
	if len(r) != 51 || r[1][6] != "10000000" || r[50][0] != "Björn" {
		t.Errorf("rows: %d, first %q, last %q", len(r), r[1], r[50])
	}
	if got := linkTarget(t, f, "Leads", "J2"); got != "https://network.example/profile/p10000000" {
		t.Errorf("link = %q", got)
	}
}
