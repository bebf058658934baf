package export

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// TestLabels: a sheet's labels rename its headers; other columns keep the
// default labels a person reads; two columns given one label stay unique.
func TestLabels(t *testing.T) {
	dir := t.TempDir()
	sh := &config.Sheet{Name: "Leads", From: []string{"search.cto"}, Dedupe: true,
		Columns: []string{"fullName", "email", "validationStatus", "companyDomain", "profileUrl", "foundIn", "firstSeen"},
		Labels:  map[string]string{"email": "Work e-mail", "companyDomain": "Work e-mail"}}
	cfg, st := fixture("leads.csv", sh)
	cfg.Dir = dir
	got, err := writeExports(cfg, st, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	recs := readCSV(t, got[0].Path, false)
	want := []string{"Full name", "Work e-mail", "E-mail status", "Work e-mail (2)", "Profile", "Found in", "First seen"}
	if diff := cmp.Diff(want, recs[0]); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
}

// TestLabelsThatReadAsFormulas: a label is the user's text, and a header
// is escaped like a cell: in a CSV file one that a spreadsheet would read
// as a formula gets the leading apostrophe; in a workbook it is a text
// cell, never a formula.
func TestLabelsThatReadAsFormulas(t *testing.T) {
	labels := map[string]string{"fullName": "=1+1", "title": "@SUM(A1:A9)", "company": "-2+3", "email": "+1"}
	for _, path := range []string{"leads.csv", "leads.xlsx"} {
		t.Run(path, func(t *testing.T) {
			dir := t.TempDir()
			sh := &config.Sheet{Name: "Leads", From: []string{"search.cto"}, Dedupe: true,
				Columns: []string{"fullName", "title", "company", "email", "location"}, Labels: labels}
			cfg, st := fixture(path, sh)
			cfg.Dir = dir
			got, err := writeExports(cfg, st, Options{Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(path, ".csv") {
				want := []string{"'=1+1", "'@SUM(A1:A9)", "'-2+3", "'+1", "Location"}
				if diff := cmp.Diff(want, readCSV(t, got[0].Path, false)[0]); diff != "" {
					t.Errorf("header (-want +got):\n%s", diff)
				}
				return
			}
			f := openXLSX(t, got[0].Path)
			want := []string{"=1+1", "@SUM(A1:A9)", "-2+3", "+1", "Location"}
			if diff := cmp.Diff(want, rows(t, f, "Leads")[0]); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
			for _, ref := range []string{"A1", "B1", "C1", "D1"} {
				if formula, err := f.GetCellFormula("Leads", ref); err != nil || formula != "" {
					t.Errorf("Leads!%s: formula %q (%v), want a text cell", ref, formula, err)
				}
			}
		})
	}
}

// TestOnlyNew: only_new keeps, per source, the people first seen in that
// source's latest run.
func TestOnlyNew(t *testing.T) {
	tests := []struct {
		name  string
		from  []string
		fresh []string // people whose FirstSeen is t1 (Berlin's run); others t0
		want  []string
	}{
		// Berlin ran at t1, Hamburg at t0: Hamburg's people (first seen at
		// t0) are all new to Hamburg's latest run.
		{"berlin, none new", []string{berlin}, nil, nil},
		{"berlin, two new", []string{berlin}, []string{"n-1", "n-4"}, []string{"n-1", "n-4"}},
		{"hamburg, first run", []string{hamburg}, nil, []string{"n-3", "n-5"}},
		// n-3 is old for Berlin but new for Hamburg's (only) run.
		{"both", []string{"search.cto"}, []string{"n-2"}, []string{"n-2", "n-3", "n-5"}},
		// The founder's profile was read at t1; Max was first seen at t0.
		{"profile, not new", []string{founder}, nil, nil},
		{"profile, new", []string{founder}, []string{"n-6"}, []string{"n-6"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sh := &config.Sheet{Name: "New", From: tc.from, Dedupe: true, OnlyNew: true, Columns: []string{"networkId"}}
			cfg, st := fixture("x.csv", sh)
			for _, id := range tc.fresh {
				st.People[id].FirstSeen = t1
			}
			got := sheetIDs(t, cfg, sh, st)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("people (-want +got):\n%s", diff)
			}
			// Without only_new every person of the sources is listed.
			sh.OnlyNew = false
			if all := sheetIDs(t, cfg, sh, st); len(all) < len(got) {
				t.Errorf("only_new listed more people (%d) than the sheet without it (%d)", len(got), len(all))
			}
		})
	}
}

// sheetIDs are the people of the sheet sh of cfg's export, by ID, in row
// order.
func sheetIDs(t *testing.T, cfg *config.Config, sh *config.Sheet, st *state.State) []string {
	t.Helper()
	rows, err := newJob(cfg, cfg.Exports[0], state.NewBase(st), Options{}).collectRows(sh)
	if err != nil {
		t.Fatal(err)
	}
	if rows.ids.len() == 0 {
		return nil
	}
	return rows.ids.all()
}

func TestFormatFilters(t *testing.T) {
	tests := []struct {
		params map[string]any
		want   string
	}{
		{nil, ""},
		{map[string]any{"keywords": "CTO"}, "keywords=CTO"},
		{map[string]any{"keywords": "CTO", "industryFilter": []string{"Internet and IT", "Banking, Finance"}},
			"industry_filter=Internet and IT; Banking, Finance | keywords=CTO"},
		{map[string]any{"levelFilter": []any{"Executive", "Manager"}, "raw": true}, "level_filter=Executive; Manager | raw=true"},
	}
	for _, tc := range tests {
		if got := formatFilters(tc.params); got != tc.want {
			t.Errorf("formatFilters(%v) = %q, want %q", tc.params, got, tc.want)
		}
	}
}

// TestZeroResultsNote: a search that returned nothing says why that may be.
func TestZeroResultsNote(t *testing.T) {
	dir := t.TempDir()
	cfg, st := fixture("x.csv", &config.Sheet{Name: "Hamburg", From: []string{hamburg}, Dedupe: true, Columns: []string{"networkId"}})
	cfg.Dir = dir
	st.Searches[hamburg] = &state.Search{Address: hamburg, RanAt: t1, ResultCount: 0, LeadIDs: []string{}}
	got, err := writeExports(cfg, st, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	sum := readCSV(t, filepath.Join(dir, "x.summary.csv"), false)
	for _, r := range sum {
		if r[0] == hamburg {
			if r[2] != "0" || !strings.Contains(r[5], "returned no results") || !strings.Contains(r[5], "München") {
				t.Errorf("Hamburg row = %q", r)
			}
			return
		}
	}
	t.Errorf("no Summary row for %s in %q (written %v)", hamburg, sum, got)
}

// TestSummaryCountsSuppressed: the Summary says how many people are
// suppressed and how many results of each search were dropped.
func TestSummaryCountsSuppressed(t *testing.T) {
	dir := t.TempDir()
	cfg, st := fixture("x.csv", &config.Sheet{Name: "Berlin", From: []string{berlin}, Dedupe: true, Columns: []string{"networkId"}})
	cfg.Dir = dir
	if err := st.Fold(state.Event{At: t1, Kind: state.EventForgetPeople, Address: state.PeopleAddress,
		People: &state.ForgetPeopleEvent{Reason: state.ForgetErasure, PersonIDs: []string{"n-2"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	for _, r := range readCSV(t, filepath.Join(dir, "x.csv"), false) {
		if r[0] == "n-2" {
			t.Errorf("the erased person is in the sheet: %q", r)
		}
	}
	found := 0
	for _, r := range readCSV(t, filepath.Join(dir, "x.summary.csv"), false) {
		switch r[0] {
		case "Suppressed":
			found++
			if r[1] != "1" {
				t.Errorf("Suppressed row = %q", r)
			}
		case berlin:
			found++
			if r[3] != "3" || !strings.Contains(r[5], "1 suppressed") || !strings.Contains(r[5], "cap of 300") {
				t.Errorf("Berlin row = %q", r)
			}
		}
	}
	if found != 2 {
		t.Errorf("found %d of the 2 rows", found)
	}
}

// TestPrintSetup: every sheet prints landscape with all columns on the
// page width (also what a PDF conversion uses), the streamed data sheets
// included.
func TestPrintSetup(t *testing.T) {
	dir := t.TempDir()
	cfg, st := fixture("p.xlsx", marketingSheets()...)
	cfg.Dir = dir
	if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, filepath.Join(dir, "p.xlsx"))
	for _, sheet := range f.GetSheetList() {
		pl, err := f.GetPageLayout(sheet)
		if err != nil {
			t.Fatal(err)
		}
		props, err := f.GetSheetProps(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if pl.Orientation == nil || *pl.Orientation != "landscape" || pl.FitToWidth == nil || *pl.FitToWidth != 1 ||
			pl.FitToHeight == nil || *pl.FitToHeight != 0 || props.FitToPage == nil || !*props.FitToPage {
			t.Errorf("%s: page layout %+v, fit to page %v", sheet, pl, props.FitToPage)
		}
	}
}
