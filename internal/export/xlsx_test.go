package export

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

func openXLSX(t *testing.T, path string) *excelize.File {
	t.Helper()
	f, err := excelize.OpenFile(path)
	if err != nil {
		t.Fatalf("reading back %s: %v", path, err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func rows(t *testing.T, f *excelize.File, sheet string) [][]string {
	t.Helper()
	r, err := f.GetRows(sheet)
	if err != nil {
		t.Fatalf("GetRows(%q): %v", sheet, err)
	}
	return r
}

// linkTarget reads the URL back out of a HYPERLINK("...") formula.
func linkTarget(t *testing.T, f *excelize.File, sheet, ref string) string {
	t.Helper()
	formula, err := f.GetCellFormula(sheet, ref)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(formula, `HYPERLINK("`) || !strings.HasSuffix(formula, `")`) {
		t.Fatalf("%s!%s: formula %q is not a HYPERLINK of one string literal", sheet, ref, formula)
	}
	lit := strings.TrimSuffix(strings.TrimPrefix(formula, `HYPERLINK("`), `")`)
	if strings.Contains(strings.ReplaceAll(lit, `""`, ""), `"`) {
		t.Fatalf("%s!%s: formula %q has an unescaped quote", sheet, ref, formula)
	}
	return strings.ReplaceAll(lit, `""`, `"`)
}

func TestXLSXReadBack(t *testing.T) {
	dir := t.TempDir()
	cfg, st := fixture("out/nested/cto-leads.xlsx", marketingSheets()...)
	cfg.Dir = dir
	got, err := writeExports(cfg, st, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "out/nested/cto-leads.xlsx")
	if len(got) != 1 || got[0].Path != path || got[0].Sheets != 2 || got[0].Rows != 11 || got[0].Export != "export.marketing" {
		t.Fatalf("Written = %+v", got)
	}
	if len(got[0].Warnings) != 0 {
		t.Errorf("unexpected warnings: %q", got[0].Warnings)
	}
	f := openXLSX(t, path)

	if diff := cmp.Diff([]string{"Summary", "CTOs", "All leads"}, f.GetSheetList()); diff != "" {
		t.Errorf("sheet order (-want +got):\n%s", diff)
	}

	wantCTOs := [][]string{
		{"Full name", "Title", "Company", "Location", "E-mail", "E-mail status", "Company domain", "Profile", "First seen"},
		{"Jürgen Müller-Lüdenscheidt", "CTO", "Bäckerei Größe GmbH", "Köln", "juergen@baeckerei.example", "valid", "baeckerei.example", "https://network.example/profile/J%C3%BCrgen_M%C3%BCller", "2026-03-01 09:30"},
		{"Siobhán O'Connor", "Head of 'Engineering'", "O'Reilly & Sons", "", "s@oreilly.example", "catch all", "", "https://network.example/profile/Siobhan_OConnor", "2026-03-01 09:30"},
		{"@SUM(A1:A9)", "-2+3", "=1+1", "", "", "", "", "https://network.example/profile/x%22y", "2026-03-01 09:30"},
		{"مريم العربي", "מנהלת טכנולוגיה", "شركة", "", "", "", "", "https://network.example/profile/maryam", "2026-03-01 09:30"},
		{"Zoë 🚀 Smith 👩‍💻", "CTO 🦄", "", "", "", "", "", "https://network.example/profile/zoe", "2026-03-01 09:30"},
	}
	if diff := cmp.Diff(wantCTOs, rows(t, f, "CTOs")); diff != "" {
		t.Errorf("CTOs (-want +got):\n%s", diff)
	}

	all := rows(t, f, "All leads")
	if diff := cmp.Diff([]string{"First name", "Last name", "Full name", "Title", "Location", "Previous title", "Company", "Network ID", "Page name", "E-mail", "E-mail status", "Company domain", "Profile", "Found in", "First seen", "Last seen"}, all[0]); diff != "" {
		t.Errorf("All leads header (-want +got):\n%s", diff)
	}
	var ids []string
	for _, r := range all[1:] {
		ids = append(ids, r[7]) // networkId
	}
	if diff := cmp.Diff([]string{"n-1", "n-2", "n-3", "n-4", "n-5", "n-6"}, ids); diff != "" {
		t.Errorf("All leads order (-want +got):\n%s", diff)
	}
	// The formula person: every value is text, none a formula.
	wantFormulaRow := []string{"=HYPERLINK(\"http://evil.example\",\"click\")", "+1", "@SUM(A1:A9)", "-2+3", "", "", "=1+1", "n-3", "x\"y"}
	if diff := cmp.Diff(wantFormulaRow, all[3][:9]); diff != "" {
		t.Errorf("formula row (-want +got):\n%s", diff)
	}
	for c := 1; c <= 9; c++ {
		ref, _ := excelize.CoordinatesToCellName(c, 4)
		if fm, _ := f.GetCellFormula("All leads", ref); fm != "" {
			t.Errorf("All leads!%s holds formula %q; data must never be a formula", ref, fm)
		}
		if typ, _ := f.GetCellType("All leads", ref); all[3][c-1] != "" && typ != excelize.CellTypeInlineString {
			t.Errorf("All leads!%s has type %v, want an inline string", ref, typ)
		}
	}
	if got := all[1][13]; got != "search.cto[\"Berlin\"]" {
		t.Errorf("foundIn of n-1 = %q", got)
	}
	if got := all[3][13]; got != "search.cto[\"Berlin\"], search.cto[\"Hamburg\"]" {
		t.Errorf("foundIn of n-3 = %q", got)
	}

	for _, sheet := range []string{"CTOs", "All leads"} {
		// Header: bold, frozen, an Excel table over the data.
		style, err := f.GetCellStyle(sheet, "A1")
		if err != nil {
			t.Fatal(err)
		}
		s, err := f.GetStyle(style)
		if err != nil || s.Font == nil || !s.Font.Bold {
			t.Errorf("%s!A1: header not bold (style %+v, %v)", sheet, s, err)
		}
		panes, err := f.GetPanes(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if !panes.Freeze || panes.YSplit != 1 || panes.XSplit != 0 || panes.TopLeftCell != "A2" {
			t.Errorf("%s: panes = %+v, want the header row frozen", sheet, panes)
		}
		tables, err := f.GetTables(sheet)
		if err != nil {
			t.Fatal(err)
		}
		n := len(rows(t, f, sheet))
		ncol := len(rows(t, f, sheet)[0])
		last, _ := excelize.CoordinatesToCellName(ncol, n)
		if len(tables) != 1 || tables[0].Range != "A1:"+last {
			t.Errorf("%s: tables = %+v, want one over A1:%s", sheet, tables, last)
		}
		// Widths fitted: the name column is wider than the default and not wider than the cap.
		w, err := f.GetColWidth(sheet, "A")
		if err != nil || w < minWidth || w > maxWidth {
			t.Errorf("%s: width of A = %v (%v)", sheet, w, err)
		}
	}
	if w, _ := f.GetColWidth("CTOs", "A"); w < float64(utf8.RuneCountInString("Jürgen Müller-Lüdenscheidt")) {
		t.Errorf("CTOs: column A width %v does not fit the longest name", w)
	}

	// Links: the profile URLs are HYPERLINK formulas, styled as links.
	for r, want := range map[int]string{
		2: "https://network.example/profile/J%C3%BCrgen_M%C3%BCller",
		4: "https://network.example/profile/x%22y",
	} {
		ref := "H" + strconv.Itoa(r)
		if got := linkTarget(t, f, "CTOs", ref); got != want {
			t.Errorf("CTOs!%s links to %q, want %q", ref, got, want)
		}
	}

	// Dates are numbers with a date format, not text.
	raw, err := f.GetCellValue("CTOs", "I2", excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	serial, err := strconv.ParseFloat(raw, 64)
	if err != nil {
		t.Fatalf("CTOs!I2 = %q, want a date serial number", raw)
	}
	when, _ := excelize.ExcelDateToTime(serial, false)
	if d := when.Sub(t0); d > time.Second || d < -time.Second {
		t.Errorf("CTOs!I2 = %v, want %v", when, t0)
	}
	ds, _ := f.GetCellStyle("CTOs", "I2")
	dst, _ := f.GetStyle(ds)
	if dst == nil || dst.CustomNumFmt == nil || *dst.CustomNumFmt != dateFormat {
		t.Errorf("CTOs!I2 style %+v: want number format %q", dst, dateFormat)
	}
	// lastSeen keeps the time of day.
	if got := all[1][15]; got != "2026-11-20 18:45" {
		t.Errorf("All leads lastSeen = %q", got)
	}

	// The profile person: link from the template, and the profile columns.
	if got := linkTarget(t, f, "All leads", "M7"); got != "https://network.example/profile/Max_Mustermann" {
		t.Errorf("All leads!M7 = %q", got)
	}

	props, err := f.GetDocProps()
	if err != nil {
		t.Fatal(err)
	}
	if props.Title != "Leads: marketing" || props.Creator != "leadsync" || props.Created != "2026-11-21T08:00:00Z" {
		t.Errorf("doc props = %+v", props)
	}

	sum := rows(t, f, "Summary")
	flat := map[string][]string{}
	for _, r := range sum {
		// The first row of a label: a source's row of its section, not
		// of the table a chart draws.
		if _, seen := flat[r0(r)]; len(r) > 0 && !seen {
			flat[r[0]] = r
		}
	}
	check := func(key string, want ...string) {
		t.Helper()
		got := flat[key]
		if len(got) < len(want)+1 {
			t.Errorf("Summary row %q = %q, want %q", key, got, want)
			return
		}
		if diff := cmp.Diff(want, got[1:len(want)+1]); diff != "" {
			t.Errorf("Summary row %q (-want +got):\n%s", key, diff)
		}
	}
	check("Export", "export.marketing")
	check("Written at", "2026-11-21 08:00")
	check("CTOs", "5", "no earlier file on record", `search.cto["Berlin"], search.cto["Hamburg"]`, "CTOs")
	check("All leads", "6", "no earlier file on record", `search.cto["Berlin"], search.cto["Hamburg"], profile.founder`, "All leads")
	check(berlin, "city=Berlin | industry_filter=Internet and IT | keywords=CTO", "300", "4", "2026-11-20 18:45")
	if !strings.Contains(flat[berlin][5], "hit the cap of 300") {
		t.Errorf("Berlin search has no cap warning: %q", flat[berlin])
	}
	check(hamburg, "city=Hamburg | keywords=CTO", "2", "2", "2026-03-01 09:30")
	if len(flat[hamburg]) > 5 && flat[hamburg][5] != "" {
		t.Errorf("Hamburg search has a note: %q", flat[hamburg])
	}
	check(founder, "Max_Mustermann", "2026-11-20 18:45")
	check("valid", "1")
	check("catch all", "1")
	check("not found", "0")
	check("not enriched", "4")
	check("Credits spent this run", "0")
	check("Credits spent, all runs", "2")
	check("Credit balance", "420")
	check("Remaining requests this month", "9,114")
	if st, _ := f.GetCellStyle("Summary", "A1"); st == 0 {
		t.Errorf("Summary title has no style")
	}
}

func TestXLSXRunStatsAndWarnings(t *testing.T) {
	dir := t.TempDir()
	sheets := []*config.Sheet{{Name: "Summary", From: []string{"search.cto", "search.other"}, Dedupe: true, Columns: []string{"fullName"}}}
	cfg, st := fixture("x.xlsx", sheets...)
	cfg.Dir = dir
	cfg.Searches = append(cfg.Searches, &config.Search{Address: "search.other", Addr: typed("search.other"), Block: "search.other", Name: "other"})
	st.Failures = map[string]*state.Failure{
		"search.other": {At: t1, Message: "service unavailable (HTTP 503)", Status: 503},
		hamburg:        {At: t1, Message: "timeout after 90s"},
	}
	rem := 77
	st.Usage.CreditsUnknown = 3
	got, err := writeExports(cfg, st, Options{Now: fixedNow, Stats: &RunStats{CreditsSpent: 5, CreditsUnknown: 1, RemainingRequests: &rem}})
	if err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, filepath.Join(dir, "x.xlsx"))
	// A sheet called Summary keeps its name; the summary moves aside.
	if diff := cmp.Diff([]string{summaryFallback, "Summary"}, f.GetSheetList()); diff != "" {
		t.Errorf("sheets (-want +got):\n%s", diff)
	}
	sum := rows(t, f, summaryFallback)
	find := func(key string) []string {
		for _, r := range sum {
			if len(r) > 0 && r[0] == key {
				return r
			}
		}
		return nil
	}
	if r := find("Credits spent this run"); len(r) < 2 || r[1] != "5" {
		t.Errorf("credits row = %q", r)
	}
	// Credits whose outcome is unknown are shown apart, never as spent.
	if r := find("Credits that may have been charged this run"); len(r) < 2 || r[1] != "1" {
		t.Errorf("unknown credits row of the run = %q", r)
	}
	if r := find("Credits that may have been charged, all runs"); len(r) < 2 || r[1] != "3" {
		t.Errorf("unknown credits row of all runs = %q", r)
	}
	if r := find("Remaining requests this month"); len(r) < 2 || r[1] != "77" {
		t.Errorf("remaining row = %q", r)
	}
	if r := find("search.other"); len(r) < 6 || r[5] != "not run yet; the last call failed (2026-11-20 18:45 UTC): service unavailable (HTTP 503)" {
		t.Errorf("search.other row = %q", r)
	}
	if r := find(hamburg); len(r) < 6 || r[5] != "the last call failed (2026-11-20 18:45 UTC): timeout after 90s" {
		t.Errorf("Hamburg row = %q", r)
	}
	if len(got[0].Warnings) != 1 || got[0].Warnings[0] != "not run yet, so they add no rows: search.other" {
		t.Errorf("warnings = %q", got[0].Warnings)
	}
	if r := find("Warnings"); r == nil {
		t.Errorf("Summary has no Warnings section")
	}
	// A warning spans the sheet's width (merged), wrapped.
	merged, err := f.GetMergeCells(summaryFallback)
	if err != nil {
		t.Fatal(err)
	}
	spans := false
	for _, m := range merged {
		if m.GetCellValue() == got[0].Warnings[0] && strings.HasPrefix(m.GetStartAxis(), "A") && m.GetEndAxis()[0] > 'C' {
			spans = true
			id, _ := f.GetCellStyle(summaryFallback, m.GetStartAxis())
			if st, err := f.GetStyle(id); err != nil || st.Alignment == nil || !st.Alignment.WrapText {
				t.Errorf("the warning cell %s does not wrap", m.GetStartAxis())
			}
		}
	}
	if !spans {
		t.Errorf("no merged cell across the sheet holds the warning: %v", merged)
	}
}

func TestXLSXContinuesPastRowLimit(t *testing.T) {
	defer func(n int) { maxRows = n }(maxRows)
	maxRows = 3 // header + 2 rows per sheet
	dir := t.TempDir()
	sheets := []*config.Sheet{{Name: "A sheet name of 31 characters!", From: []string{"search.cto"}, Dedupe: true, Columns: []string{"networkId"}}}
	cfg, st := fixture("x.xlsx", sheets...)
	cfg.Dir = dir
	got, err := writeExports(cfg, st, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Sheets != 3 || got[0].Rows != 5 {
		t.Errorf("Written = %+v", got[0])
	}
	f := openXLSX(t, filepath.Join(dir, "x.xlsx"))
	// " (2)" takes 4 characters: the base is cut to 27.
	want := []string{"Summary", "A sheet name of 31 characters!", "A sheet name of 31 characte (2)", "A sheet name of 31 characte (3)"}
	for _, n := range want {
		if utf16Len(n) > maxSheetName {
			t.Fatalf("test bug: %q too long", n)
		}
	}
	if diff := cmp.Diff(want, f.GetSheetList()); diff != "" {
		t.Errorf("sheets (-want +got):\n%s", diff)
	}
	var ids []string
	for _, s := range want[1:] {
		r := rows(t, f, s)
		if r[0][0] != "Network ID" {
			t.Errorf("%s: header %q", s, r[0])
		}
		for _, row := range r[1:] {
			ids = append(ids, row[0])
		}
		if p, _ := f.GetPanes(s); !p.Freeze {
			t.Errorf("%s: header not frozen", s)
		}
	}
	if diff := cmp.Diff([]string{"n-1", "n-2", "n-3", "n-4", "n-5"}, ids); diff != "" {
		t.Errorf("rows across sheets (-want +got):\n%s", diff)
	}
	if len(got[0].Warnings) != 1 || !strings.Contains(got[0].Warnings[0], "continued on") {
		t.Errorf("warnings = %q", got[0].Warnings)
	}
}

func TestXLSXCutsLongCells(t *testing.T) {
	dir := t.TempDir()
	sheets := []*config.Sheet{{Name: "S", From: []string{founder}, Dedupe: true, Columns: []string{"fullName", "description"}}}
	cfg, st := fixture("x.xlsx", sheets...)
	cfg.Dir = dir
	long := strings.Repeat("ä🚀", 20000) // 60,000 UTF-16 units
	st.People["n-6"].Profile.Description = long
	got, err := writeExports(cfg, st, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, filepath.Join(dir, "x.xlsx"))
	v, _ := f.GetCellValue("S", "B2")
	if utf16Len(v) > maxCellChars || !strings.HasSuffix(v, truncMarker) || !strings.HasPrefix(long, strings.TrimSuffix(v, truncMarker)) {
		t.Errorf("cut cell: %d units, suffix %q", utf16Len(v), v[len(v)-50:])
	}
	if len(got[0].Warnings) != 1 || !strings.Contains(got[0].Warnings[0], "1 cell was longer than the 32,767 characters an Excel cell holds and was cut; it ends in") {
		t.Errorf("warnings = %q", got[0].Warnings)
	}
}

func TestXLSXEmptySheetAndNoState(t *testing.T) {
	dir := t.TempDir()
	cfg, _ := fixture("x.xlsx", marketingSheets()...)
	cfg.Dir = dir
	if _, err := writeExports(cfg, nil, Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, filepath.Join(dir, "x.xlsx"))
	r := rows(t, f, "CTOs")
	if len(r) != 1 || r[0][0] != "Full name" {
		t.Errorf("empty sheet rows = %q", r)
	}
}

func TestXLSXFailureKeepsPreviousFile(t *testing.T) {
	dir := t.TempDir()
	cfg, st := fixture("x.xlsx", marketingSheets()...)
	cfg.Dir = dir
	path := filepath.Join(dir, "x.xlsx")
	if err := os.WriteFile(path, []byte("previous"), 0o640); err != nil {
		t.Fatal(err)
	}
	cfg.Exports[0].Sheets[0].Columns = []string{"fullName", "shoeSize"}
	_, err := writeExports(cfg, st, Options{Now: fixedNow})
	if err == nil || !strings.Contains(err.Error(), `export.marketing: sheet "CTOs": unknown column "shoeSize"`) {
		t.Fatalf("err = %v", err)
	}
	cfg.Exports[0].Sheets[0].Columns = []string{"fullName"}
	testHookBeforeRename = func(string) error { return os.ErrPermission }
	defer func() { testHookBeforeRename = nil }()
	if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err == nil {
		t.Fatal("no error from the failing rename")
	}
	b, _ := os.ReadFile(path)
	if string(b) != "previous" {
		t.Errorf("previous file changed: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
	testHookBeforeRename = nil
	if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the previous file's 0640", fi.Mode().Perm())
	}
	openXLSX(t, path)
}

func TestXLSXAwkwardStrings(t *testing.T) {
	dir := t.TempDir()
	sheets := []*config.Sheet{{Name: "S", From: []string{founder}, Dedupe: true, Columns: []string{"fullName", "description", "profileUrl"}}}
	cfg, st := fixture("x.xlsx", sheets...)
	cfg.Dir = dir
	cfg.Settings.ProfileURLTemplate = ""
	p := st.People["n-6"]
	p.Lead.FullName = "_x0041_ & <b>bold</b> \"quoted\""
	p.Profile.Description = "bell\x07 and vertical tab\x0b and NUL\x00 end  "
	p.Profile.NetworkURL = `https://network.example/p?a="b"&c=<d>`
	if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, filepath.Join(dir, "x.xlsx"))
	r := rows(t, f, "S")
	if r[1][0] != p.Lead.FullName {
		t.Errorf("A2 = %q, want %q", r[1][0], p.Lead.FullName)
	}
	// XML 1.0 cannot hold these control characters: they become U+FFFD;
	// trailing spaces are kept.
	if want := "bell\uFFFD and vertical tab\uFFFD and NUL\uFFFD end  "; r[1][1] != want {
		t.Errorf("B2 = %q, want %q", r[1][1], want)
	}
	if got := linkTarget(t, f, "S", "C2"); got != p.Profile.NetworkURL {
		t.Errorf("C2 links to %q, want %q", got, p.Profile.NetworkURL)
	}
	if r[1][2] != p.Profile.NetworkURL {
		t.Errorf("C2 shows %q", r[1][2])
	}
}

// TestFileWhereAFolderShouldBe: the error names the file in the way and
// says what to do, for XLSX and CSV alike.
func TestFileWhereAFolderShouldBe(t *testing.T) {
	for _, name := range []string{"out/sub/x.xlsx", "out/sub/x.csv"} {
		dir := t.TempDir()
		cfg, st := fixture(name, marketingSheets()[0])
		cfg.Dir = dir
		if err := os.WriteFile(filepath.Join(dir, "out"), []byte("a file"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := writeExports(cfg, st, Options{Now: fixedNow})
		want := filepath.Join(dir, "out") + " is a file, not a folder; move that file away or change the export's path"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to say %q", name, err, want)
		}
	}
}

// r0 is the first cell of a row, "" for an empty row.
func r0(r []string) string {
	if len(r) == 0 {
		return ""
	}
	return r[0]
}
