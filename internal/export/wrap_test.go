package export

import (
	"archive/zip"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestLineBreaksWrap: a data cell holding a line break wraps, in a row as
// tall as its lines (at most the 409 points a row can have), so that no
// reader draws its lines over the rows below; rows without one keep the
// default height. The column is as wide as the longest line.
func TestLineBreaksWrap(t *testing.T) {
	dir := t.TempDir()
	cfg, st := fixture("out/leads.xlsx", marketingSheets()...)
	cfg.Dir = dir
	st.People["n-1"].Lead.Title = "CTO\nand founder\nof three companies"
	st.People["n-2"].Lead.Title = strings.Repeat("line\n", 99) + "the hundredth"
	if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.OpenReader(filepath.Join(dir, "out/leads.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	xml := func(name string) string {
		t.Helper()
		for _, f := range zr.File {
			if f.Name == name {
				rc, err := f.Open()
				if err != nil {
					t.Fatal(err)
				}
				defer rc.Close()
				b, err := io.ReadAll(rc)
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
		}
		t.Fatalf("no %s", name)
		return ""
	}
	ctos := xml("xl/worksheets/sheet2.xml") // CTOs
	rowRE := regexp.MustCompile(`(?s)<row r="(\d+)"( ht="(\d+)" customHeight="1")?>(.*?)</row>`)
	heights := map[string]string{}
	for _, m := range rowRE.FindAllStringSubmatch(ctos, -1) {
		switch {
		case strings.Contains(m[4], "and founder"):
			heights["three lines"] = m[3]
			if !regexp.MustCompile(`<c r="B\d+" s="\d+" t="inlineStr"><is><t>CTO\nand founder`).MatchString(m[4]) {
				t.Errorf("the cell with line breaks has no style of its own: %s", m[4])
			}
			// Its neighbours are at the top of the row too (a style of
			// their own), not at the bottom beside the next row's.
			if !regexp.MustCompile(`<c r="A\d+" s="\d+" t="inlineStr"><is><t>Jürgen`).MatchString(m[4]) {
				t.Errorf("the other cells of a tall row are not at its top: %s", m[4])
			}
		case strings.Contains(m[4], "the hundredth"):
			heights["a hundred lines"] = m[3]
		case m[1] != "1":
			if m[3] != "" {
				t.Errorf("row %s has no line break but a height of %s", m[1], m[3])
			}
		}
	}
	if heights["three lines"] != strconv.Itoa(3*sumLineHeight) || heights["a hundred lines"] != "409" {
		t.Errorf("row heights %v: want 45 for three lines, 409 (the most a row holds) for a hundred", heights)
	}
	// The wrapping style: the cells' style wraps.
	if styles := xml("xl/styles.xml"); !strings.Contains(styles, `wrapText="true"`) {
		t.Error("no style wraps text")
	}
	// The Title column fits "of three companies", not the whole text.
	if w := regexp.MustCompile(`<col min="2" max="2" width="([0-9.]+)"`).FindStringSubmatch(ctos); w == nil {
		t.Errorf("no width of the Title column: %s", ctos[:min(len(ctos), 600)])
	} else if f, _ := strconv.ParseFloat(w[1], 64); f > 30 {
		t.Errorf("the Title column is %s wide: its longest line has 20 characters", w[1])
	}
}
