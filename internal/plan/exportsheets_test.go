package plan

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExportSheetContinued lowers the worksheet's row limit and plans an
// XLSX export in each situation: the plan says which sheets may pass it and
// the worksheets they continue on, counting the people state holds and what
// the planned runs may add (300 a call); a sheet within the limit, a CSV
// export and an export up to date say nothing.
func TestExportSheetContinued(t *testing.T) {
	defer func(n int) { sheetRowLimit = n }(sheetRowLimit)
	sheetRowLimit = 5 // a header and 4 data rows a worksheet
	tests := []struct {
		name  string
		setup func(f *fixture)
		want  []SheetContinued
	}{
		{"within the limit", func(f *fixture) {
			f.ran("search.cto", t0.Add(-day), ids(1, 4)...)
			f.ran("search.cfo", t0.Add(-day))
		}, nil},
		{"state holds more", func(f *fixture) {
			f.ran("search.cto", t0.Add(-day), ids(1, 4)...)
			f.ran("search.cfo", t0.Add(-day), ids(10, 5)...)
		}, []SheetContinued{{Sheet: "Leads", RowsMax: 9, Names: []string{"Leads", "Leads (2)", "Leads (3)"}}}},
		{"a search not run yet may bring 300", func(f *fixture) {
			f.ran("search.cto", t0.Add(-day), ids(1, 2)...)
		}, []SheetContinued{{Sheet: "Leads", RowsMax: 302, Names: continuedNames(76)}}},
		{"a name that is taken", func(f *fixture) {
			f.ran("search.cto", t0.Add(-day), ids(1, 4)...)
			f.ran("search.cfo", t0.Add(-day), ids(10, 1)...)
			x := f.cfg.Exports[0]
			taken := *x.Sheets[0]
			taken.Name, taken.From = "Leads (2)", []string{"search.cto"}
			x.Sheets = append(x.Sheets, &taken)
		}, []SheetContinued{{Sheet: "Leads", RowsMax: 5, Names: []string{"Leads", "Leads (3)"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture()
			f.search("search.cto", kw("CTO"))
			f.search("search.cfo", kw("CFO"))
			f.export("marketing", "out/leads.xlsx", "search.cto", "search.cfo")
			tc.setup(f)
			p := f.build(t, f.opts())
			c := p.Change("export.marketing")
			if diff := cmp.Diff(tc.want, c.Continued); diff != "" {
				t.Fatalf("continued (-want +got):\n%s", diff)
			}
			said := strings.Contains(c.Detail, "more than the 4 a worksheet holds: continued on")
			if said != (tc.want != nil) {
				t.Errorf("detail %q", c.Detail)
			}
		})
	}
}

// TestExportSheetContinuedDetail: the words of the plan, and nothing for a
// CSV export (no limit) or an export up to date.
func TestExportSheetContinuedDetail(t *testing.T) {
	defer func(n int) { sheetRowLimit = n }(sheetRowLimit)
	sheetRowLimit = 3
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.export("marketing", "out/leads.xlsx", "search.cto")
	f.export("csv", "out/leads.csv", "search.cto")
	f.ran("search.cto", t0.Add(-day), ids(1, 5)...)
	f.wrote("export.csv")
	p := f.build(t, f.opts())
	want := `out/leads.xlsx (missing); sheet "Leads": up to 5 rows, more than the 2 a worksheet holds: continued on "Leads (2)", "Leads (3)"`
	if got := p.Change("export.marketing").Detail; got != want {
		t.Errorf("detail\n got %q\nwant %q", got, want)
	}
	f.cfg.Exports[1].Format = "csv"
	f.exists = map[string]bool{}
	p = f.build(t, f.opts())
	if c := p.Change("export.csv"); c.Continued != nil || strings.Contains(c.Detail, "continued") {
		t.Errorf("a CSV export: %+v", c)
	}
	f.wrote("export.marketing")
	p = f.build(t, f.opts())
	if c := p.Change("export.marketing"); c.Action != None || c.Continued != nil {
		t.Errorf("an export up to date: %+v", c)
	}
}

// continuedNames are "Leads", "Leads (2)" ... "Leads (n)".
func continuedNames(n int) []string {
	out := []string{"Leads"}
	for i := 2; i <= n; i++ {
		out = append(out, "Leads ("+strconv.Itoa(i)+")")
	}
	return out
}
