package export

import (
	"archive/zip"
	"bytes"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestWorkbookOpensOnThePeople: the workbook opens on the first people
// sheet (the active tab, the only one selected), the Summary stays the
// first tab; the Summary says what the file holds first (the sheets with
// the people new since the last file, then the e-mails by status) and
// keeps the account's figures in its last section.
func TestWorkbookOpensOnThePeople(t *testing.T) {
	dir := t.TempDir()
	cfg, st := fixture("out/leads.xlsx", marketingSheets()...)
	cfg.Dir = dir
	// Two people were first seen after the file was last written.
	last := t0.Add(24 * time.Hour)
	later := last.Add(time.Hour)
	for _, id := range []string{"n-5", "n-6"} { // emoji (Hamburg: CTOs and All leads), max (the founder: All leads)
		for _, p := range st.People {
			if p.ID == id {
				p.FirstSeen = later
			}
		}
	}
	if _, err := writeExports(cfg, st, Options{Now: fixedNow, LastWritten: &last}); err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, filepath.Join(dir, "out/leads.xlsx"))
	if got := f.GetSheetList(); got[0] != "Summary" || got[1] != "CTOs" {
		t.Fatalf("sheets %q", got)
	}
	if got := f.GetActiveSheetIndex(); got != 1 {
		t.Errorf("the workbook opens on sheet %d, want 1 (CTOs)", got)
	}
	// Only CTOs (sheet2.xml) is selected: two selected tabs are a group,
	// whose sheets an edit changes together.
	zr, err := zip.OpenReader(filepath.Join(dir, "out/leads.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, zf := range zr.File {
		if !strings.HasPrefix(zf.Name, "xl/worksheets/sheet") {
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
		if selected := bytes.Contains(b, []byte(`tabSelected="1"`)) || bytes.Contains(b, []byte(`tabSelected="true"`)); selected != (zf.Name == "xl/worksheets/sheet2.xml") {
			t.Errorf("%s selected: %v", zf.Name, selected)
		}
	}

	var titles []string
	sum := rows(t, f, "Summary")
	newSince := map[string]string{}
	for i, r := range sum {
		if len(r) == 1 || (len(r) > 0 && i > 0 && len(sum[i-1]) == 0) {
			titles = append(titles, r[0])
		}
		if len(r) > 2 && (r[0] == "CTOs" || r[0] == "All leads") {
			newSince[r[0]] = r[2]
		}
	}
	if i, j := slices.Index(titles, "Sheets"), slices.Index(titles, "Enrichment of the people in this export"); i < 0 || j < i || titles[len(titles)-1] != "Credits and quota" {
		t.Errorf("Summary sections %q: want Sheets, then the e-mails, and Credits and quota last", titles)
	}
	if newSince["CTOs"] != "1" || newSince["All leads"] != "2" {
		t.Errorf("new since the last file: %v, want CTOs 1, All leads 2", newSince)
	}
}
