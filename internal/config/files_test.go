package config

import (
	"slices"
	"testing"
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
