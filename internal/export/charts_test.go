package export

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"github.com/leadsync/leadsync/internal/state"
)

// drawn is what a chart of the Summary draws: its series' name, then each
// category with its number, read from the cells its ranges name.
type drawn struct {
	name   string
	points []string // "category=number"
}

// summaryCharts reads the charts of the workbook at path (excelize cannot
// read charts back: their XML is read from the zip) and the cells their
// series reference, by chart title.
func summaryCharts(t *testing.T, path string) map[string]drawn {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	f := openXLSX(t, path)
	out := map[string]drawn{}
	for _, zf := range zr.File {
		if !strings.HasPrefix(zf.Name, "xl/charts/chart") {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		refs, title := chartRefs(t, b)
		if len(refs) != 3 || title == "" {
			t.Fatalf("%s: want a title and one series (name, categories, values), got %q, title %q", zf.Name, refs, title)
		}
		cats, vals := cellRange(t, f, refs[1]), cellRange(t, f, refs[2])
		if len(cats) != len(vals) {
			t.Fatalf("%s: %d categories, %d values", zf.Name, len(cats), len(vals))
		}
		d := drawn{name: strings.Join(cellRange(t, f, refs[0]), "")}
		for i := range cats {
			if _, err := strconv.Atoi(vals[i]); err != nil {
				t.Errorf("%s: value %q of %s is no number", zf.Name, vals[i], cats[i])
			}
			d.points = append(d.points, cats[i]+"="+vals[i])
		}
		out[title] = d
	}
	return out
}

// chartRefs returns the cell references (<c:f>) of a chart part, in order,
// and the text of its title.
func chartRefs(t *testing.T, part []byte) (refs []string, title string) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(part))
	var stack []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return refs, title
		}
		if err != nil {
			t.Fatal(err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			stack = append(stack, x.Name.Local)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			switch {
			case len(stack) == 0:
			case stack[len(stack)-1] == "f":
				refs = append(refs, string(x))
			case stack[len(stack)-1] == "t" && slices.Contains(stack, "title"):
				title += string(x)
			}
		}
	}
}

// cellRange reads the cells of a reference such as 'Summary'!$A$5:$A$8
// (one column).
func cellRange(t *testing.T, f *excelize.File, ref string) []string {
	t.Helper()
	sheet, cells, ok := strings.Cut(ref, "!")
	if !ok {
		t.Fatalf("reference %q names no sheet", ref)
	}
	sheet = strings.ReplaceAll(strings.Trim(sheet, "'"), "''", "'")
	from, to, _ := strings.Cut(strings.ReplaceAll(cells, "$", ""), ":")
	if to == "" {
		to = from
	}
	c1, r1, err1 := excelize.CellNameToCoordinates(from)
	c2, r2, err2 := excelize.CellNameToCoordinates(to)
	if err1 != nil || err2 != nil || c1 != c2 {
		t.Fatalf("reference %q: want one column", ref)
	}
	var out []string
	for r := r1; r <= r2; r++ {
		ref, _ := excelize.CoordinatesToCellName(c1, r)
		v, err := f.GetCellValue(sheet, ref)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.ReplaceAll(v, ",", ""))
	}
	return out
}

func TestSummaryCharts(t *testing.T) {
	at := func(m time.Month, d int) time.Time { return time.Date(2026, m, d, 9, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name    string
		history bool
		months  map[string]int
		want    map[string]drawn
		unknown string // the row "Credits charged in an unknown month"
	}{{
		name:    "every chart",
		history: true,
		months:  map[string]int{"2026-10": 1, "2026-08": 0},
		want: map[string]drawn{
			"E-mails by status":         {"People", []string{"valid=1", "catch all=1", "not found=0", "not enriched=4"}},
			"Job changes per month":     {"People whose title or company changed", []string{"2026-09=1", "2026-11=1"}},
			"People per source":         {"People", []string{berlin + "=4", hamburg + "=2", founder + "=1"}},
			"Credits charged per month": {"Credits charged", []string{"2026-10=1"}},
		},
		unknown: "1", // 2 spent, 1 of them by month
	}, {
		name: "no job changes, no credits by month",
		want: map[string]drawn{
			"E-mails by status": {"People", []string{"valid=1", "catch all=1", "not found=0", "not enriched=4"}},
			"People per source": {"People", []string{berlin + "=4", hamburg + "=2", founder + "=1"}},
		},
		unknown: "2",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg, st := fixture("x.xlsx", marketingSheets()...)
			cfg.Dir = dir
			if tc.history {
				// Jürgen's company and title changed in September (one
				// person that month), Siobhán's title in November; a
				// move is no job change.
				st.People["n-1"].History = []state.Drift{
					{Field: state.DriftCompany, Before: "A", After: "B", At: at(9, 3)},
					{Field: state.DriftTitle, Before: "A", After: "B", At: at(9, 20)},
					{Field: state.DriftLocation, Before: "A", After: "B", At: at(10, 1)},
				}
				st.People["n-2"].History = []state.Drift{{Field: state.DriftTitle, Before: "A", After: "B", At: at(11, 2)}}
			}
			st.Usage.CreditsByMonth = tc.months
			if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "x.xlsx")
			if diff := cmp.Diff(tc.want, summaryCharts(t, path), cmp.AllowUnexported(drawn{})); diff != "" {
				t.Errorf("charts (-want +got):\n%s", diff)
			}
			var unknown []string
			for _, r := range rows(t, openXLSX(t, path), "Summary") {
				if len(r) > 1 && r[0] == "Credits charged in an unknown month" {
					unknown = r
				}
			}
			if len(unknown) < 2 || unknown[1] != tc.unknown {
				t.Errorf("credits of an unknown month: row %q, want %s", unknown, tc.unknown)
			}
		})
	}
}

// TestCSVSummaryHasNoChartTables: a CSV summary carries no charts, so none
// of the tables they read.
func TestCSVSummaryHasNoChartTables(t *testing.T) {
	dir := t.TempDir()
	cfg, st := fixture("x.csv", marketingSheets()...)
	cfg.Dir = dir
	st.Usage.CreditsByMonth = map[string]int{"2026-10": 2}
	written, err := writeExports(cfg, st, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	summaries := 0
	for _, w := range written {
		if !w.Summary {
			continue
		}
		summaries++
		b, err := os.ReadFile(w.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"People per source", "Credits charged"} {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds %q: a CSV summary has no charts", w.Path, s)
			}
		}
	}
	if summaries != 1 {
		t.Errorf("%d summary files written, want 1", summaries)
	}
}
