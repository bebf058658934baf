package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/exportformat"
)

func TestExportFiles(t *testing.T) {
	sheets := func(names ...string) []*Sheet {
		var out []*Sheet
		for _, n := range names {
			out = append(out, &Sheet{Name: n})
		}
		return out
	}
	for _, tc := range []struct {
		x       Export
		data    []string
		summary string
	}{
		{Export{Path: "out/a.xlsx", Format: "xlsx", Sheets: sheets("A", "B")}, []string{"out/a.xlsx"}, ""},
		{Export{Path: "out/crm.csv", Format: "csv", Sheets: sheets("All")}, []string{"out/crm.csv"}, "out/crm.summary.csv"},
		{Export{Path: "out/leads.csv", Format: "csv", Sheets: sheets("CTOs", "All leads", "Köln", "???", "ctos")},
			[]string{"out/leads-ctos.csv", "out/leads-all-leads.csv", "out/leads-koln.csv", "out/leads-sheet-4.csv", "out/leads-ctos-2.csv"},
			"out/leads.summary.csv"},
	} {
		data, summary := tc.x.Files()
		if !slices.Equal(data, tc.data) || summary != tc.summary {
			t.Errorf("%s: got %v %q, want %v %q", tc.x.Path, data, summary, tc.data, tc.summary)
		}
	}
}

// TestExportFormatsFromTheTable: the extensions an export path may end in,
// the format it gets and the files it writes come from exportformat's
// table alone: a format added there is accepted, with the files of its
// layout, and its extension is named in the error of a path that fits none.
func TestExportFormatsFromTheTable(t *testing.T) {
	const src = `
api {
  sandbox = true
}

search "cto" {
  keywords = "CTO"
}

export "a" {
  path = "out/a.ods"
  sheet "CTOs" { from = [search.cto] }
  sheet "All" { from = [search.cto] }
}

export "b" {
  path = "out/b.TSV"
  sheet "CTOs" { from = [search.cto] }
  sheet "All" { from = [search.cto] }
}
`
	load := func() (*Config, hcl.Diagnostics) {
		return Load(LoadOptions{Dir: "d", FS: memFS(map[string]string{"main.leads.hcl": src})})
	}
	if _, diags := load(); len(diags) != 2 || diags[0].Summary != "Unsupported export format" ||
		diags[0].Detail != `path must end in .xlsx or .csv; "out/a.ods" does not.` {
		t.Fatalf("before the formats are registered: %v", diags)
	}
	t.Cleanup(exportformat.Register(exportformat.Format{Name: "ods", Ext: ".ods", Layout: exportformat.Workbook}))
	t.Cleanup(exportformat.Register(exportformat.Format{Name: "tsv", Ext: ".tsv", Layout: exportformat.FilePerSheet}))
	cfg, diags := load()
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, tc := range []struct {
		format, summary string
		data            []string
	}{
		{"ods", "", []string{"out/a.ods"}},
		{"tsv", "out/b.summary.TSV", []string{"out/b-ctos.TSV", "out/b-all.TSV"}},
	} {
		x := cfg.Exports[slices.IndexFunc(cfg.Exports, func(x *Export) bool { return x.Format == tc.format })]
		if data, summary := x.Files(); !slices.Equal(data, tc.data) || summary != tc.summary {
			t.Errorf("%s: files %q %q, want %q %q", tc.format, data, summary, tc.data, tc.summary)
		}
	}
	_, diags = Load(LoadOptions{Dir: "d", FS: memFS(map[string]string{"main.leads.hcl": `
api {
  sandbox = true
}
export "c" {
  path = "c.txt"
  sheet "A" { from = [] }
}
`})})
	if !strings.Contains(diags.Error(), `path must end in .xlsx, .csv, .ods or .tsv; "c.txt" does not.`) {
		t.Errorf("unknown extension with four formats: %v", diags)
	}
}
