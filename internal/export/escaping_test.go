package export

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// formulaStarts are the first characters that make a spreadsheet read a
// cell as a formula (the OWASP list for CSV injection).
var formulaStarts = []string{"=", "+", "-", "@", "\t", "\r"}

// hostileSource is one search whose people, one per formula start, carry
// that start at the beginning of every text the service sends: names,
// title, company, location, e-mail status (a Summary row too), the profile
// link and the photo link; and one person whose http link holds quotes.
func hostileSource(path string) (*config.Config, *state.State) {
	const addr = "search.x"
	cfg := &config.Config{
		Searches: []*config.Search{{Address: addr, Addr: typed(addr), Block: addr, Name: "x", Request: api.SearchRequest{Params: map[string]any{"keywords": "x"}}}},
		Exports: []*config.Export{{Address: "export.x", Name: "x", Path: path, Format: formatOf(path), Sheets: []*config.Sheet{{
			Name: "People", From: []string{addr}, Columns: append(append([]string{}, config.DefaultColumns...), config.ExtraColumns...),
		}}}},
	}
	st := state.New()
	rec := &state.Search{Address: addr, RanAt: t1}
	st.Searches[addr] = rec
	for i, c := range formulaStarts {
		id := fmt.Sprintf("n-%d", i)
		v := func(what string) string { return c + what + "(A1)" }
		p := testPerson(id, person.Lead{FirstName: v("first"), LastName: v("last"), FullName: v("full"), Title: v("title"),
			Company: v("company"), Location: v("location"), NetworkID: id, PageName: "page" + id}, addr)
		p.Profile = &person.Profile{FullName: v("full"), NetworkURL: v("profile"), Description: v("description")}
		p.Enrichment = &state.Enrichment{EnrichedAt: t1, By: "enrich.x", Result: person.EnrichedProfile{
			Email: "a@b.example", ValidationStatus: v("status"), CompanyDomain: v("domain"), ProfileImgURL: v("photo"),
		}}
		st.People[id] = p
		rec.LeadIDs = append(rec.LeadIDs, id)
	}
	quoted := testPerson("n-q", person.Lead{FullName: "Quote", NetworkID: "n-q", PageName: "q"}, addr)
	quoted.Profile = &person.Profile{FullName: "Quote", NetworkURL: `https://evil.example/x")&cmd("`}
	st.People["n-q"] = quoted
	rec.LeadIDs = append(rec.LeadIDs, "n-q")
	rec.ResultCount = len(rec.LeadIDs)
	return cfg, st
}

// TestCSVCellsNeverStartAFormula: in the CSV sheet and the CSV Summary no
// cell starts with a formula character: text and link cells and the
// Summary's strings that came from the service get the apostrophe.
func TestCSVCellsNeverStartAFormula(t *testing.T) {
	dir := t.TempDir()
	cfg, st := hostileSource("out/x.csv")
	cfg.Dir = dir
	written, err := writeExports(cfg, st, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 2 {
		t.Fatalf("wrote %+v, want the sheet and the Summary", written)
	}
	var all []string
	for _, w := range written {
		for r, row := range readCSV(t, w.Path, false) {
			for c, cell := range row {
				if cell != "" && strings.ContainsAny(cell[:1], strings.Join(formulaStarts, "")) {
					t.Errorf("%s row %d column %d is read as a formula: %q", filepath.Base(w.Path), r+1, c+1, cell)
				}
				all = append(all, filepath.Base(w.Path)+" "+cell)
			}
		}
	}
	// encoding/csv drops a carriage return inside a field when it ends
	// lines in CRLF, and photo links are trimmed.
	esc := func(file, v string) string { return file + " '" + strings.ReplaceAll(v, "\r", "") }
	for _, c := range formulaStarts {
		wants := []string{esc("x.csv", c+"full(A1)"), esc("x.csv", c+"title(A1)"), esc("x.csv", c+"company(A1)"),
			esc("x.csv", c+"profile(A1)"), esc("x.csv", c+"status(A1)"), esc("x.summary.csv", c+"status(A1)")}
		if photo := strings.TrimSpace(c + "photo(A1)"); photo[0] == c[0] {
			wants = append(wants, esc("x.csv", photo))
		}
		for _, want := range wants {
			if !contains(all, want) {
				t.Errorf("no cell %q", want)
			}
		}
	}
}

// TestXLSXCellsNeverAFormulaOfData: in the workbook no cell of data is a
// formula: text, links that are not http(s) and the Summary's strings are
// text cells holding the value as sent; an http(s) link is a HYPERLINK
// whose only data is the URL, its quotes doubled.
func TestXLSXCellsNeverAFormulaOfData(t *testing.T) {
	dir := t.TempDir()
	cfg, st := hostileSource("out/x.xlsx")
	cfg.Dir = dir
	written, err := writeExports(cfg, st, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, written[0].Path)
	values := map[string]bool{}
	for _, sheet := range f.GetSheetList() {
		for r, row := range rows(t, f, sheet) {
			for c := range row {
				ref, _ := excelize.CoordinatesToCellName(c+1, r+1)
				val, _ := f.GetCellValue(sheet, ref)
				values[sheet+" "+val] = true
				formula, _ := f.GetCellFormula(sheet, ref)
				if formula == "" {
					continue
				}
				if want, ok := hyperlinkFormula(val); !ok || formula != want {
					t.Errorf("%s!%s is the formula %q (value %q): data must never be a formula", sheet, ref, formula, val)
				}
			}
		}
	}
	for _, c := range formulaStarts {
		for _, want := range []string{"People " + c + "full(A1)", "People " + c + "profile(A1)", "People " + strings.TrimSpace(c+"photo(A1)"), summarySheet + " " + c + "status(A1)"} {
			if !values[want] {
				t.Errorf("no text cell %q", want)
			}
		}
	}
	url := st.People["n-q"].Profile.NetworkURL
	if !values["People "+url] {
		t.Errorf("no link cell showing %q", url)
	}
	if formula, _ := hyperlinkFormula(url); formula != `HYPERLINK("https://evil.example/x"")&cmd(""")` {
		t.Errorf("the link's formula is %s", formula)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
