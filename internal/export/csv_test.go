package export

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/config"
)

func readCSV(t *testing.T, path string, wantBOM bool) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := bytes.HasPrefix(b, []byte(bom)); got != wantBOM {
		t.Errorf("%s: BOM %v, want %v", path, got, wantBOM)
	}
	if !bytes.Contains(b, []byte("\r\n")) {
		t.Errorf("%s: lines do not end in CRLF", path)
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(b, []byte(bom))))
	recs, err := r.ReadAll() // also checks every record has as many fields as the first
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return recs
}

func TestCSVReadBack(t *testing.T) {
	dir := t.TempDir()
	cfg, st := fixture("out/leads.csv", marketingSheets()...)
	cfg.Dir = dir
	got, err := writeExports(cfg, st, Options{Now: fixedNow, BOM: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []Written{
		{Path: filepath.Join(dir, "out/leads-ctos.csv"), Export: "export.marketing", Sheets: 1, Rows: 5},
		{Path: filepath.Join(dir, "out/leads-all-leads.csv"), Export: "export.marketing", Sheets: 1, Rows: 6},
		{Path: filepath.Join(dir, "out/leads.summary.csv"), Export: "export.marketing", Summary: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Written (-want +got):\n%s", diff)
	}

	wantCTOs := [][]string{
		{"Full name", "Title", "Company", "Location", "E-mail", "E-mail status", "Company domain", "Profile", "First seen"},
		{"Jürgen Müller-Lüdenscheidt", "CTO", "Bäckerei Größe GmbH", "Köln", "juergen@baeckerei.example", "valid", "baeckerei.example", "https://network.example/profile/J%C3%BCrgen_M%C3%BCller", "2026-03-01T09:30:00Z"},
		{"Siobhán O'Connor", "Head of 'Engineering'", "O'Reilly & Sons", "", "s@oreilly.example", "catch all", "", "https://network.example/profile/Siobhan_OConnor", "2026-03-01T09:30:00Z"},
		{"'@SUM(A1:A9)", "'-2+3", "'=1+1", "", "", "", "", "https://network.example/profile/x%22y", "2026-03-01T09:30:00Z"},
		{"مريم العربي", "מנהלת טכנולוגיה", "شركة", "", "", "", "", "https://network.example/profile/maryam", "2026-03-01T09:30:00Z"},
		{"Zoë 🚀 Smith 👩‍💻", "CTO 🦄", "", "", "", "", "", "https://network.example/profile/zoe", "2026-03-01T09:30:00Z"},
	}
	if diff := cmp.Diff(wantCTOs, readCSV(t, got[0].Path, true)); diff != "" {
		t.Errorf("CTOs (-want +got):\n%s", diff)
	}

	all := readCSV(t, got[1].Path, true)
	if diff := cmp.Diff([]string{"First name", "Last name", "Full name", "Title", "Location", "Previous title", "Company", "Network ID", "Page name", "E-mail", "E-mail status", "Company domain", "Profile", "Found in", "First seen", "Last seen"}, all[0]); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	wantFormula := []string{"'=HYPERLINK(\"http://evil.example\",\"click\")", "'+1", "'@SUM(A1:A9)", "'-2+3", "", "", "'=1+1", "n-3", "x\"y",
		"", "", "", "https://network.example/profile/x%22y", `search.cto["Berlin"], search.cto["Hamburg"]`, "2026-03-01T09:30:00Z", "2026-11-20T18:45:12Z"}
	if diff := cmp.Diff(wantFormula, all[3]); diff != "" {
		t.Errorf("formula row (-want +got):\n%s", diff)
	}
	if len(all) != 7 || all[6][7] != "n-6" {
		t.Errorf("All leads rows = %q", all)
	}

	sum := readCSV(t, got[2].Path, true)
	find := func(key string) []string {
		for _, r := range sum {
			if r[0] == key {
				return r
			}
		}
		t.Errorf("summary has no row %q", key)
		return make([]string, 6)
	}
	if r := find("Written at"); r[1] != "2026-11-21T08:00:00Z" {
		t.Errorf("Written at = %q", r)
	}
	if r := find("CTOs"); r[1] != "5" || r[2] != "no earlier file on record" || r[4] != "leads-ctos.csv" {
		t.Errorf("CTOs row = %q", r)
	}
	if r := find(berlin); r[2] != "300" || !strings.Contains(r[5], "cap of 300") {
		t.Errorf("Berlin row = %q", r)
	}
	if r := find("not enriched"); r[1] != "4" {
		t.Errorf("not enriched = %q", r)
	}
}

func TestCSVOneSheetNoBOM(t *testing.T) {
	dir := t.TempDir()
	sheets := []*config.Sheet{{Name: "Everyone", From: []string{"search.cto", "search.cto", founder}, Dedupe: false, Columns: []string{"networkId", "premiumProfile", "enrichedAt", "currentPosition", "description"}}}
	cfg, st := fixture("leads.csv", sheets...)
	cfg.Dir = dir
	got, err := writeExports(cfg, st, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Path != filepath.Join(dir, "leads.csv") || got[1].Path != filepath.Join(dir, "leads.summary.csv") {
		t.Fatalf("Written = %+v", got)
	}
	recs := readCSV(t, got[0].Path, false)
	// dedupe = false: n-3 once per search that found it.
	want := [][]string{
		{"Network ID", "Premium profile", "Enriched at", "Current position", "Description"},
		{"n-1", "", "2026-11-20T18:45:12Z", "", ""},
		{"n-2", "", "2026-11-20T18:45:12Z", "", ""},
		{"n-3", "", "", "", ""},
		{"n-4", "", "", "", ""},
		{"n-3", "", "", "", ""},
		{"n-5", "", "", "", ""},
		{"n-6", "true", "", "Founder at Muster AG (2019)", "Founder.\nBuilds things."},
	}
	if diff := cmp.Diff(want, recs); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestCSVFailureKeepsEveryPreviousFile(t *testing.T) {
	dir := t.TempDir()
	cfg, st := fixture("leads.csv", marketingSheets()...)
	cfg.Dir = dir
	first := filepath.Join(dir, "leads-ctos.csv")
	if err := os.WriteFile(first, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The second sheet's file cannot be replaced: a folder is in the way.
	if err := os.Mkdir(filepath.Join(dir, "leads-all-leads.csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := writeExports(cfg, st, Options{Now: fixedNow})
	if err == nil || !strings.Contains(err.Error(), "leads-all-leads.csv: it is a folder") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(first); string(b) != "previous" {
		t.Errorf("the first sheet's file was replaced although the export failed: %q", b)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{"leads-all-leads.csv", "leads-ctos.csv"}, names); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func TestCSVPaths(t *testing.T) {
	tests := []struct {
		path    string
		sheets  []string
		files   []string
		summary string
	}{
		{"out/a.csv", []string{"x"}, []string{"out/a.csv"}, "out/a.summary.csv"},
		{"a.CSV", []string{"CTOs", "All leads"}, []string{"a-ctos.CSV", "a-all-leads.CSV"}, "a.summary.CSV"},
		{"a.csv", []string{"Köln Süd", "köln süd!", "🚀"}, []string{"a-koln-sud.csv", "a-koln-sud-2.csv", "a-sheet-3.csv"}, "a.summary.csv"},
		{"a.csv", nil, nil, "a.summary.csv"},
	}
	for _, tt := range tests {
		files, summary := config.SheetFiles(tt.path, tt.sheets)
		if diff := cmp.Diff(tt.files, files); diff != "" || summary != tt.summary {
			t.Errorf("SheetFiles(%q, %q) = %q, %q; want %q, %q", tt.path, tt.sheets, files, summary, tt.files, tt.summary)
		}
	}
}

func TestNeutralise(t *testing.T) {
	tests := map[string]string{
		"":             "",
		"=1+1":         "'=1+1",
		"+49 30 1234":  "'+49 30 1234",
		"-2":           "'-2",
		"@SUM(A1)":     "'@SUM(A1)",
		"\tx":          "'\tx",
		"\rx":          "'\rx",
		"a=b":          "a=b",
		"'quoted":      "'quoted",
		"O'Connor":     "O'Connor",
		" =not first":  " =not first",
		"Jürgen":       "Jürgen",
		"https://x.de": "https://x.de",
	}
	for in, want := range tests {
		if got := neutralise(in); got != want {
			t.Errorf("neutralise(%q) = %q, want %q", in, got, want)
		}
	}
}
