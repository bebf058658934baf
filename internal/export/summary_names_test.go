package export

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSummaryNamesSourcesByLabel: the Summary names a search or profile
// that sets a label by its label (words for the people who read the file),
// in every place it names one: the rows of the searches and profiles, the
// sheets' From and the People per source chart. A source without a label
// keeps its address; a label two sources share is followed by the address,
// so that each row still names one source.
func TestSummaryNamesSourcesByLabel(t *testing.T) {
	for _, tc := range []struct {
		name          string
		hamburg       string // the label of search.cto["Hamburg"]
		berlinShown   string
		hamburgShown  string
		founderShown  string
		berlinNowhere bool // no cell names Berlin's search by its address
	}{
		{name: "labels", berlinShown: "CTOs in Berlin", hamburgShown: hamburg, founderShown: "Our founder", berlinNowhere: true},
		{name: "shared", hamburg: "CTOs in Berlin", berlinShown: `CTOs in Berlin (search.cto["Berlin"])`,
			hamburgShown: `CTOs in Berlin (search.cto["Hamburg"])`, founderShown: "Our founder"},
	} {
		for _, file := range []string{"x.csv", "x.xlsx"} {
			t.Run(tc.name+"/"+file, func(t *testing.T) {
				dir := t.TempDir()
				cfg, st := fixture(file, marketingSheets()...)
				cfg.Dir = dir
				cfg.Searches[0].Label = "CTOs in Berlin"
				cfg.Searches[1].Label = tc.hamburg
				cfg.Profiles[0].Label = "Our founder"
				if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
					t.Fatal(err)
				}
				var sum [][]string
				if file == "x.csv" {
					sum = readCSV(t, filepath.Join(dir, "x.summary.csv"), false)
				} else {
					sum = rows(t, openXLSX(t, filepath.Join(dir, file)), "Summary")
				}
				first := map[string]int{}
				var from []string
				for _, r := range sum {
					if len(r) == 0 {
						continue
					}
					first[r[0]]++
					if r[0] == "All leads" {
						from = r
					}
					if tc.berlinNowhere && slices.ContainsFunc(r, func(c string) bool { return strings.Contains(c, berlin) }) {
						t.Errorf("a row names %s by its address: %q", berlin, r)
					}
				}
				// The searches' and profiles' rows, and in the workbook the
				// chart's table of people per source once more.
				want := 1
				if file == "x.xlsx" {
					want = 2
				}
				for _, name := range []string{tc.berlinShown, tc.hamburgShown, tc.founderShown} {
					if first[name] != want {
						t.Errorf("%d rows start with %q, want %d:\n%q", first[name], name, want, sum)
					}
				}
				if len(from) < 4 || !strings.Contains(from[3], tc.berlinShown) || !strings.Contains(from[3], tc.founderShown) {
					t.Errorf("the All leads sheet's From: %q", from)
				}
			})
		}
	}
}
