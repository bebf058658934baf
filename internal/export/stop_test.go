package export

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A writer stopped midway through its rows (a second Ctrl-C) stops at
// the next batch, removes its temporary files, the rows' spill file in
// the system temp folder included, and puts nothing in place.
func TestAWriterStoppedInItsRowsLeavesNoFile(t *testing.T) {
	stoppedInItsRows(t, xlsxWriter{}, "leads.xlsx")
}

// A CSV writer stopped midway through its rows stops at the next batch,
// removes its temporary files and puts none of its files in place.
func TestACSVWriterStoppedInItsRowsLeavesNoFile(t *testing.T) {
	stoppedInItsRows(t, csvWriter{}, "leads.csv")
}

// stoppedInItsRows checks that w, stopped at row 20,000 of 50,000, stops
// before its last row and leaves no file.
func stoppedInItsRows(t *testing.T, w writer, name string) {
	t.Helper()
	const rows, stopAt = 50_000, 20_000
	dir, filled := stoppedWrite(t, w, name, rows, stopAt)
	if filled >= rows {
		t.Errorf("the writer filled all %d rows after its stop at row %d, want it to stop at the next batch", rows, stopAt)
	}
	mustBeEmpty(t, dir)
}

// A writer stopped after its last row, before its rename, puts nothing in
// place and removes its temporary file.
func TestAWriterStoppedBeforeItsRenameLeavesNoFile(t *testing.T) {
	const rows = 10 // less than a batch: the stop is seen before the rename only
	dir, _ := stoppedWrite(t, xlsxWriter{}, "leads.xlsx", rows, rows-1)
	mustBeEmpty(t, dir)
}

// A CSV writer stopped after its last row puts none of its files in
// place: they go in together, or not at all.
func TestACSVWriterStoppedBeforeItsRenamesLeavesNoFile(t *testing.T) {
	const rows = 10
	dir, _ := stoppedWrite(t, csvWriter{}, "leads.csv", rows, rows-1)
	mustBeEmpty(t, dir)
}

// stoppedWrite has w write rows synthetic rows into file name of a new
// folder, the writer stopped when row stopAt is filled, an XLSX's rows
// spilled past 64 KiB into a temp folder of the test's. It checks the
// write's error is ErrStopped and that temp folder left empty, and
// returns the folder and how many rows were filled.
func stoppedWrite(t *testing.T, w writer, name string, rows, stopAt int) (dir string, filled int) {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	was := spillMemory
	spillMemory = 64 << 10
	t.Cleanup(func() { spillMemory = was })
	dir = t.TempDir()
	j := syntheticJob(filepath.Join(dir, name), rows, fixedAt)
	n := stopAtRow(t, j, stopAt)
	if _, err := w.write(j); !errors.Is(err, ErrStopped) {
		t.Fatalf("stopped at row %d of %d: %v, want ErrStopped", stopAt, rows, err)
	}
	mustBeEmpty(t, tmp)
	return dir, *n
}

// stopAtRow makes j's writer stop (Options.Stop ended) when row at of its
// first sheet is filled; it returns where the rows filled are counted.
func stopAtRow(t *testing.T, j *job, at int) *int {
	stop, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	j.opts.Stop = stop
	tb := j.haltable(j.sheets[0].table)
	fill := tb.fill
	filled := new(int)
	tb.fill = func(i int, row []cellValue) {
		*filled++
		if i == at {
			cancel()
		}
		fill(i, row)
	}
	return filled
}

// mustBeEmpty fails the test when dir holds a file.
func mustBeEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("%s is left in %s", e.Name(), dir)
	}
}
