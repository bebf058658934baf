package export

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

var dimensionRe = regexp.MustCompile(`<dimension ref="([^"]*)"`)

// readZipEntries returns the entries of a zip file by name.
func readZipEntries(t *testing.T, path string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string][]byte{}
	for _, zf := range zr.File {
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", zf.Name, err)
		}
		out[zf.Name] = b
	}
	return out
}

// TestXLSXDimension: a data sheet declares its real used range (header and
// rows), read from the sheet's XML as a reader that trusts <dimension>
// (openpyxl in read-only mode) does. It used to say "A1".
func TestXLSXDimension(t *testing.T) {
	for _, n := range []int{0, 1, 1200} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.xlsx")
			if _, err := writeSynthetic(path, n, fixedAt); err != nil {
				t.Fatal(err)
			}
			entries := readZipEntries(t, path)
			// The Summary is sheet1; the data sheet is sheet2.
			sheet, ok := entries["xl/worksheets/sheet2.xml"]
			if !ok {
				t.Fatal("no xl/worksheets/sheet2.xml")
			}
			want := fmt.Sprintf("A1:L%d", n+1)
			m := dimensionRe.FindSubmatch(sheet)
			if m == nil || string(m[1]) != want {
				t.Errorf("dimension %q, want %q", m, want)
			}
			if got := bytes.Count(sheet, []byte("<row ")); got != n+1 {
				t.Errorf("%d rows in the XML, want %d", got, n+1)
			}
			// The Summary (written in excelize's normal mode) declares
			// its used range too: up to its last row and column.
			summary := entries["xl/worksheets/sheet1.xml"]
			lastCol, lastRow := 0, 0
			for _, m := range cellRefRe.FindAllSubmatch(summary, -1) {
				col, row, err := excelize.CellNameToCoordinates(string(m[1]))
				if err != nil {
					t.Fatal(err)
				}
				lastCol, lastRow = max(lastCol, col), max(lastRow, row)
			}
			wantSum, err := excelize.CoordinatesToCellName(lastCol, lastRow)
			if err != nil || lastRow < 10 {
				t.Fatalf("Summary's last cell (%d, %d): %v", lastCol, lastRow, err)
			}
			if m := dimensionRe.FindSubmatch(summary); m == nil || string(m[1]) != "A1:"+wantSum {
				t.Errorf("Summary's dimension %q, want %q", m, "A1:"+wantSum)
			}
		})
	}
}

// cellRefRe finds the reference of each cell of a worksheet's XML.
var cellRefRe = regexp.MustCompile(`<c r="([A-Z]+[0-9]+)"`)

// recordingZip is an excelize.ZipWriter that records how excelize writes a
// package, in the shape spliceZip relies on.
type recordingZip struct {
	calls   []string          // "Create <name>", "AddFS", "Close"
	entries map[string][]byte // what was written into each entry
	current string            // the entry Create returned last
	late    []string          // writes into an entry after the next call
}

type recordingEntry struct {
	z    *recordingZip
	name string
}

func (e *recordingEntry) Write(p []byte) (int, error) {
	if e.z.current != e.name {
		e.z.late = append(e.z.late, e.name)
	}
	e.z.entries[e.name] = append(e.z.entries[e.name], p...)
	return len(p), nil
}

func (z *recordingZip) Create(name string) (io.Writer, error) {
	z.calls = append(z.calls, "Create "+name)
	z.current = name
	return &recordingEntry{z: z, name: name}, nil
}

func (z *recordingZip) AddFS(fs.FS) error {
	z.calls = append(z.calls, "AddFS")
	z.current = ""
	return nil
}

func (z *recordingZip) Close() error {
	z.calls = append(z.calls, "Close")
	z.current = ""
	return nil
}

// TestExcelizeInternals pins what writeDataSheet and spliceZip assume of
// excelize (v2.11.0 when written). If it fails after an excelize upgrade,
// the XLSX writer may produce broken files: read the message, then check
// splice.go and writeDataSheet against the new excelize before fixing the
// test.
func TestExcelizeInternals(t *testing.T) {
	const changed = "excelize changed how it writes a workbook; the XLSX writer (splice.go, writeDataSheet) relies on this: "
	f := excelize.NewFile()
	defer f.Close()
	styles, err := newXLSXStyles(f)
	if err != nil {
		t.Fatal(err)
	}
	tb := &table{
		name: "S", header: []string{"a", "b", "c"}, kinds: []cellKind{kindText, kindText, kindText}, n: 2,
		fill: func(i int, row []cellValue) {
			for c := range row {
				row[c] = cellValue{Text: fmt.Sprint(i, c)}
			}
		},
	}
	part, rows, err := writeDataSheet(f, styles, "S", "S_1", tb, 0, tb.n, true)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.data.Close()
	// 1. Part names: a new sheet's part is named after its sheet ID.
	if part != "xl/worksheets/sheet2.xml" {
		t.Errorf(changed+"the second sheet's part is %q, not xl/worksheets/sheet2.xml", part)
	}

	// 2. The package is written through the ZipWriter given to
	// SetZipWriter, made once per Write; the io.Writer it is given is not
	// where the file goes (xlsxWriter writes into its own file).
	z := &recordingZip{entries: map[string][]byte{}}
	made := 0
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter { made++; return z })
	var direct bytes.Buffer
	if err := f.Write(&direct); err != nil {
		t.Fatal(err)
	}
	if made != 1 {
		t.Errorf(changed+"Write made %d zip writers, want 1", made)
	}
	if len(z.calls) == 0 || z.calls[len(z.calls)-1] != "Close" {
		t.Fatalf(changed+"the zip writer was not closed last: calls %q", z.calls)
	}

	// 3. The order of calls: each entry is written whole between its
	// Create and the next call (spliceZip completes the pending worksheet
	// at the next Create, AddFS or Close), and the worksheet once.
	if len(z.late) > 0 {
		t.Errorf(changed+"entries written after the next call: %q", z.late)
	}
	creates := 0
	for _, c := range z.calls {
		if c == "Create "+part {
			creates++
		}
	}
	if creates != 1 {
		t.Errorf(changed+"the worksheet %s was created %d times, want once; calls %q", part, creates, z.calls)
	}

	// 4. The worksheet's XML as the StreamWriter writes it: the dimension
	// set before the StreamWriter started, the header row only, one
	// </sheetData> before which the rows are spliced, the table part after.
	sheet := string(z.entries[part])
	if n := strings.Count(sheet, "</sheetData>"); n != 1 {
		t.Errorf(changed+"the worksheet has %d </sheetData>, want 1:\n%s", n, sheet)
	}
	if m := dimensionRe.FindStringSubmatch(sheet); m == nil || m[1] != "A1:C3" {
		t.Errorf(changed+"the worksheet's dimension is %q, want A1:C3 (SetSheetDimension before NewStreamWriter):\n%s", m, sheet)
	}
	if !strings.Contains(sheet, `<row r="1"`) || strings.Contains(sheet, `<row r="2"`) {
		t.Errorf(changed+"the worksheet should hold the header row only:\n%s", sheet)
	}
	end := strings.Index(sheet, "</sheetData>")
	if i := strings.Index(sheet, "<sheetData>"); i < 0 || i > end || strings.Index(sheet, "<dimension") > i {
		t.Errorf(changed+"<dimension>, <sheetData> and </sheetData> are not in that order:\n%s", sheet)
	}
	cols := regexp.MustCompile(`<col min="(\d+)"`).FindAllStringSubmatch(sheet, -1)
	var order []string
	for _, c := range cols {
		order = append(order, c[1])
	}
	if strings.Join(order, ",") != "1,2,3" {
		t.Errorf(changed+"<col> elements in the order %v, want 1,2,3 (writeDataSheet sets widths last column first)", order)
	}
	if i := strings.Index(sheet, "<tableParts"); i < end {
		t.Errorf(changed+"the table part is not after </sheetData>:\n%s", sheet)
	}
}
