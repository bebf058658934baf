package export

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// manySearches returns a configuration whose one sheet reads n instances
// of search.city, of which the last `unrun` have not run, and a state
// where each run one found one person. The configuration finds its
// addresses through an index, as a loaded one does: scanning all n
// searches for each of them took 3 of the 5.6 s of an export of 4,000.
func manySearches(path string, n, unrun int) (*config.Config, *state.State) {
	sheet := &config.Sheet{Name: "CTOs", From: []string{"search.city"}, Dedupe: true, Columns: []string{"fullName", "networkId"}}
	cfg, st := fixture(path, sheet)
	cfg.Indexed()
	cfg.Searches = nil
	st.Searches = map[string]*state.Search{}
	for i := range n {
		addr := fmt.Sprintf(`search.city["City number %05d"]`, i)
		cfg.Searches = append(cfg.Searches, &config.Search{Address: addr, Addr: typed(addr), Block: "search.city", Name: "city",
			Request: api.SearchRequest{Params: map[string]any{"keywords": "CTO", "city": fmt.Sprintf("City number %05d", i)}}})
		if i >= n-unrun {
			continue
		}
		id := fmt.Sprintf("p-%d", i)
		st.People[id] = testPerson(id, st.People["n-1"].Lead, addr)
		st.Searches[addr] = &state.Search{Address: addr, RanAt: t1, ResultCount: 1, LeadIDs: []string{id}}
	}
	return cfg, st
}

// summaryLongest writes the XLSX export of manySearches(n) and returns the
// longest text of its Summary, failing when a row is taller than Excel
// allows.
func summaryLongest(t *testing.T, n int) (longest string, from string) {
	t.Helper()
	dir := t.TempDir()
	cfg, st := manySearches("x.xlsx", n, n/10)
	cfg.Dir = dir
	if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
		t.Fatalf("%d searches: %v", n, err)
	}
	f := openXLSX(t, filepath.Join(dir, "x.xlsx"))
	all, err := f.GetRows(summarySheet, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	for r, row := range all {
		if h, err := f.GetRowHeight(summarySheet, r+1); err != nil || h > maxRowHeight {
			t.Errorf("%d searches: row %d is %v points high (%v)", n, r+1, h, err)
		}
		for _, v := range row {
			if len(v) > len(longest) {
				longest = v
			}
		}
		if len(row) > 3 && row[0] == "CTOs" {
			from = row[3]
		}
	}
	return longest, from
}

// TestSummaryTextsDoNotGrowWithSearches: an export fed by 4,000 searches
// (400 of them not run yet) has a Summary whose longest text is as long as
// that of one fed by 40: the sheet's sources and the warning of the
// sources not run name the first few and count the rest, where a list of
// every search made a row taller than the 409 points Excel allows
// (issue 25: an apply at 1,660,000 people failed writing the workbook).
func TestSummaryTextsDoNotGrowWithSearches(t *testing.T) {
	small, _ := summaryLongest(t, 40)
	big, from := summaryLongest(t, 4000)
	if len(big) > len(small)+10 { // "and 36 more" against "and 3,996 more"
		t.Errorf("the Summary's longest text grows with the searches: %d characters at 40 searches, %d at 4,000:\n%.300s", len(small), len(big), big)
	}
	want := `search.city["City number 00000"], search.city["City number 00001"], search.city["City number 00002"] and 3,997 more`
	if from != want {
		t.Errorf("From of the sheet = %.300q, want %q", from, want)
	}
}

func TestSomeOf(t *testing.T) {
	defer func(n int) { listShown = n }(listShown)
	listShown = 2
	for _, tt := range []struct {
		items []string
		want  string
	}{
		{nil, ""},
		{[]string{"a"}, "a"},
		{[]string{"a", "b"}, "a, b"},
		{[]string{"a", "b", "c"}, "a, b and 1 more"},
		{make([]string, 10002), ", " + " and 10,000 more"},
	} {
		if got := someOf(tt.items); got != tt.want {
			t.Errorf("someOf(%d items) = %q, want %q", len(tt.items), got, tt.want)
		}
	}
}
