package export

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/leadsync/leadsync/internal/textfmt"
)

func TestWrappedLines(t *testing.T) {
	for _, tc := range []struct {
		s     string
		width int
		want  int
	}{
		{"", 10, 1},
		{"short", 10, 1},
		{"exactly 10", 10, 1},
		{"exactly 10!", 10, 2},
		{"one two three four", 9, 3}, // "three four" is 10 wide
		{"one two three four", 10, 2},
		{"aaaaaaaaaaaaaaaaaaaaa", 10, 3}, // a word longer than a line is broken
		{"ab aaaaaaaaaaaaaaaaaaaa cd", 10, 4},
		{"line one\nline two", 20, 2},
		{"Köln München Düsseldorf", 11, 3},
		{"東京東京東京", 6, 2}, // wide characters count two
	} {
		if got := wrappedLines(tc.s, tc.width); got != tc.want {
			t.Errorf("wrappedLines(%q, %d) = %d, want %d", tc.s, tc.width, got, tc.want)
		}
	}
}

// TestSummaryLayout reads the Summary back and checks it reads without
// cut-off text: every cell of a plain or header row fits its column or
// wraps in a row tall enough; whole numbers show thousands separators and
// stay numbers; the columns are no wider than the cap.
func TestSummaryLayout(t *testing.T) {
	dir := t.TempDir()
	cfg, st := fixture("x.xlsx", marketingSheets()...)
	cfg.Dir = dir
	if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, filepath.Join(dir, "x.xlsx"))
	const sheet = "Summary"
	style := func(ref string) *excelize.Style {
		t.Helper()
		id, err := f.GetCellStyle(sheet, ref)
		if err != nil {
			t.Fatal(err)
		}
		s, err := f.GetStyle(id)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	wraps := func(s *excelize.Style) bool { return s.Alignment != nil && s.Alignment.WrapText }

	shown := rows(t, f, sheet)
	raw, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	var wrapped, numbers int
	for r, row := range shown {
		if len(row) < 2 { // titles, blank rows, warnings across the sheet
			continue
		}
		for c, v := range row {
			if v == "" {
				continue
			}
			ref, _ := excelize.CoordinatesToCellName(c+1, r+1)
			col := colName(c)
			width, err := f.GetColWidth(sheet, col)
			if err != nil {
				t.Fatal(err)
			}
			if width > sumMaxWidth {
				t.Errorf("column %s is %v wide, more than the cap of %d", col, width, sumMaxWidth)
			}
			s := style(ref)
			if _, err := strconv.ParseFloat(raw[r][c], 64); err == nil && s.CustomNumFmt == nil {
				// A whole number (dates have their own format).
				numbers++
				if s.NumFmt != numFmtThousands {
					t.Errorf("%s = %q: number format %d, want %d (#,##0)", ref, v, s.NumFmt, numFmtThousands)
				}
			}
			if float64(textfmt.Width(v)) <= width-1 {
				continue
			}
			// Too long for its column: wrapped, in a row tall enough.
			if !wraps(s) {
				t.Errorf("%s = %q (%d characters) is cut off: column %s is %v wide and the cell does not wrap", ref, v, textfmt.Width(v), col, width)
				continue
			}
			wrapped++
			h, err := f.GetRowHeight(sheet, r+1)
			if err != nil {
				t.Fatal(err)
			}
			if need := float64(wrappedLines(v, int(width)-1) * sumLineHeight); h < need {
				t.Errorf("row %d is %v points high, %s needs %v", r+1, h, ref, need)
			}
		}
	}
	// The fixture has long filters and notes, and numbers such as 9,114.
	if wrapped == 0 || numbers < 5 {
		t.Errorf("%d wrapped cells, %d numbers: the fixture should have both", wrapped, numbers)
	}
	for _, r := range shown {
		if len(r) > 1 && r[0] == "Remaining requests this month" && r[1] != "9,114" {
			t.Errorf("remaining requests shown as %q, want 9,114", r[1])
		}
	}
}
