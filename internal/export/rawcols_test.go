package export

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/xuri/excelize/v2"
)

// specRaw is a raw item shaped as spec 2.3 shows it: every node key, the
// highlight keys null or arrays with ** around matched terms.
const specRaw = `{
  "cursor": "Y3Vyc29yOjA=",
  "node": {
    "networkId": {
      "id": "1234.ab12", "displayName": "Ana **Lima**", "displayFlag": "BASIC",
      "location": {"displayLocation": "**Berlin**, Germany"},
      "profileOccupation": {"occupationOrg": "Acme"},
      "occupations": [
        {"category": "WORK_EXPERIENCE", "summary": "**CTO** at Acme", "links": null},
        {"category": "EDUCATION", "summary": "TU **Berlin**", "links": null},
        {"category": "WORK_EXPERIENCE", "summary": "Lead Engineer, Banking, Finance", "links": null},
        {"category": "EDUCATION", "summary": "  ", "links": null}
      ],
      "pageName": "Ana_Lima",
      "profileImage": [
        {"url": "https://img.example/a_256x256.jpg"},
        {"url": "https://img.example/a_1024x1024.jpg"},
        {"url": "https://img.example/a_64x64.jpg"}
      ]
    },
    "highlight": {
      "interests": null, "wants": null, "currentTitle": ["**CTO** at Acme"], "previousTitle": null,
      "haves": ["**Go**", "**Kubernetes**"], "currentCompany": null, "education": null, "organizations": null,
      "qualifications": null, "awards": null, "province": null, "city": ["**Berlin**"], "country": null,
      "zipCode": null, "currentNotes": null, "previousCompany": null, "portfolioTilesTitle": null,
      "portfolioTilesPlainContent": null, "currentIndustries": ["**Banking, Finance**"], "previousIndustries": []
    },
    "trackingToken": "t-0",
    "position": 0,
    "contains": null,
    "missing": null,
    "profileSkills": {"topSkills": ["**Go**", "Kubernetes", "=cmd|' /C calc'!A0"]},
    "sharedContacts": {"total": 0},
    "contactsCount": {"count": 1234},
    "networkRelationship": {"permissions": ["MESSAGE", "VIEW_CONTACT_DETAILS"]},
    "contactDistance": {"distance": 2}
  }
}`

func rawPerson(raw string) *state.Person {
	return &state.Person{Raw: json.RawMessage(raw)}
}

func cellOf(t *testing.T, col string, p *state.Person) cellValue {
	t.Helper()
	c, err := columnFor(col, "")
	if err != nil {
		t.Fatal(err)
	}
	var got cellValue
	c.fill(p, &rawCache{}, &got)
	return got
}

func num(n int64) cellValue { return cellValue{Num: n} }

var unknown = cellValue{Empty: true}

func TestRawColumns(t *testing.T) {
	spec := rawPerson(specRaw)
	none := &state.Person{}
	nulls := rawPerson(`{"cursor": null, "node": {"networkId": null, "highlight": null, "profileSkills": null,
		"sharedContacts": null, "contactsCount": {"count": null}, "networkRelationship": {"permissions": null}, "contactDistance": {}}}`)
	empty := rawPerson(`{"node": {"networkId": {"occupations": [], "profileImage": []}, "highlight": {"city": [], "haves": null},
		"profileSkills": {"topSkills": []}, "networkRelationship": {"permissions": []}}}`)
	// Types the spec leaves open or a service might change: each costs its
	// own field only.
	odd := rawPerson(`{"node": {
		"networkId": {"occupations": "not a list", "profileImage": [{"url": "https://img.example/x.jpg"}]},
		"highlight": {"newKey": ["**x** y"], "currentTitle": "**Boss**", "haves": [1, null, "**Go**", {"a": 1}], "aKey": [""]},
		"profileSkills": {"topSkills": ["Go", 3, true, {"name": "**SQL**", "id": 7}, {"id": 8}, null, "", "  ", ["x"]]},
		"sharedContacts": {"total": "12"}, "contactsCount": {"count": 12.0}, "contactDistance": {"distance": 1.5},
		"networkRelationship": {"permissions": ["MESSAGE", 5]}}}`)
	notJSON := rawPerson(`{"node": {"profileSkills": {"topSkills": ["Go"]`)
	nodeText := rawPerson(`{"node": "text"}`)
	big := rawPerson(`{"node": {"contactsCount": {"count": 9007199254740993}, "sharedContacts": {"total": 1e300}, "contactDistance": {"distance": -1}}}`)

	tests := []struct {
		col  string
		name string
		p    *state.Person
		want cellValue
	}{
		{"topSkills", "spec", spec, cellValue{Text: "Go; Kubernetes; =cmd|' /C calc'!A0"}},
		{"topSkills", "no raw", none, cellValue{}},
		{"topSkills", "nulls", nulls, cellValue{}},
		{"topSkills", "empty", empty, cellValue{}},
		{"topSkills", "odd items", odd, cellValue{Text: `Go; 3; true; SQL; {"id":8}; ["x"]`}},
		{"topSkills", "not JSON", notJSON, cellValue{}},
		{"topSkills", "node is text", nodeText, cellValue{}},

		{"experience", "spec", spec, cellValue{Text: "CTO at Acme; Lead Engineer, Banking, Finance"}},
		{"education", "spec", spec, cellValue{Text: "TU Berlin"}},
		{"education", "nulls", nulls, cellValue{}},
		{"experience", "empty", empty, cellValue{}},
		{"experience", "occupations not a list", odd, cellValue{}},

		{"highlights", "spec", spec, cellValue{Text: "Title: CTO at Acme | Skills: Go; Kubernetes | Industry: Banking, Finance | City: Berlin"}},
		{"highlights", "nulls", nulls, cellValue{}},
		{"highlights", "empty arrays", empty, cellValue{}},
		{"highlights", "odd values, keys the spec does not list", odd, cellValue{Text: "Title: Boss | Skills: 1; Go; {\"a\":1} | newKey: x y"}},
		{"highlights", "no raw", none, cellValue{}},

		{"permissions", "spec", spec, cellValue{Text: "MESSAGE; VIEW_CONTACT_DETAILS"}},
		{"permissions", "odd", odd, cellValue{Text: "MESSAGE; 5"}},
		{"permissions", "nulls", nulls, cellValue{}},

		{"contactsCount", "spec", spec, num(1234)},
		{"sharedContacts", "spec: 0 is a count", spec, num(0)},
		{"contactDistance", "spec", spec, num(2)},
		{"contactsCount", "no raw", none, unknown},
		{"contactsCount", "null", nulls, unknown},
		{"sharedContacts", "object null", nulls, unknown},
		{"contactDistance", "key missing", nulls, unknown},
		{"contactsCount", "12.0", odd, num(12)},
		{"sharedContacts", "a string", odd, unknown},
		{"contactDistance", "not whole", odd, unknown},
		{"contactsCount", "not JSON", notJSON, unknown},
		{"contactsCount", "beyond int64 precision still exact", big, num(9007199254740993)},
		{"sharedContacts", "too big", big, unknown},
		{"contactDistance", "negative, as sent", big, num(-1)},

		{"photoUrl", "raw: the largest size", spec, cellValue{Text: "https://img.example/a_1024x1024.jpg"}},
		{"photoUrl", "raw: no size in the URL", odd, cellValue{Text: "https://img.example/x.jpg"}},
		{"photoUrl", "raw: none", empty, cellValue{}},
		{"photoUrl", "nothing", none, cellValue{}},
	}
	for _, tt := range tests {
		got := cellOf(t, tt.col, tt.p)
		if got != tt.want {
			t.Errorf("%s (%s) = %+v, want %+v", tt.col, tt.name, got, tt.want)
		}
		if strings.Contains(got.Text, "**") {
			t.Errorf("%s (%s) shows highlight markers: %q", tt.col, tt.name, got.Text)
		}
	}
}

// TestPhotoURLOrder: the enrichment's avatar first, then the profile
// read's, then the raw result's.
func TestPhotoURLOrder(t *testing.T) {
	p := rawPerson(specRaw)
	if got := cellOf(t, "photoUrl", p).Text; got != "https://img.example/a_1024x1024.jpg" {
		t.Errorf("raw only: %q", got)
	}
	p.Profile = &person.Profile{ProfileImg: "https://img.example/profile.jpg"}
	if got := cellOf(t, "photoUrl", p).Text; got != "https://img.example/profile.jpg" {
		t.Errorf("profile and raw: %q", got)
	}
	p.Enrichment = &state.Enrichment{Result: person.EnrichedProfile{ProfileImgURL: " "}}
	if got := cellOf(t, "photoUrl", p).Text; got != "https://img.example/profile.jpg" {
		t.Errorf("blank enrichment avatar: %q", got)
	}
	p.Enrichment.Result.ProfileImgURL = "https://img.example/enriched.jpg"
	if got := cellOf(t, "photoUrl", p).Text; got != "https://img.example/enriched.jpg" {
		t.Errorf("all three: %q", got)
	}
	if c, _ := columnFor("photoUrl", ""); c.kind != kindLink {
		t.Errorf("photoUrl is a %v column, want a link", c.kind)
	}
}

func TestWorkHistory(t *testing.T) {
	end := func(s string) *string { return &s }
	tests := []struct {
		name string
		tl   []person.TimelinePosition
		want string
	}{
		{"none", nil, ""},
		{"empty", []person.TimelinePosition{}, ""},
		{"current and past", []person.TimelinePosition{
			{JobTitle: "Founder", Company: "Muster AG", StartDate: "Feb 2022", Date: "4 years, since Feb 2022", DaysInPosition: 1500},
			{JobTitle: "CTO", Company: "Acme", StartDate: "Mar 2019", EndDate: end("Jan 2022"), DaysInPosition: 1040},
		}, "Founder at Muster AG (since Feb 2022); CTO at Acme (Mar 2019 – Jan 2022)"},
		{"no start: the date text", []person.TimelinePosition{{JobTitle: "CTO", Company: "Acme", Date: "2 years, since Mar 2019"}}, "CTO at Acme (2 years, since Mar 2019)"},
		{"ended, no end date", []person.TimelinePosition{{JobTitle: "CTO", StartDate: "Mar 2019", EndDate: end("")}}, "CTO (from Mar 2019)"},
		{"end only", []person.TimelinePosition{{Company: "Acme", EndDate: end("Jan 2022")}}, "Acme (until Jan 2022)"},
		{"dates only", []person.TimelinePosition{{StartDate: "Mar 2019"}}, "since Mar 2019"},
		{"empty positions are left out", []person.TimelinePosition{{}, {JobTitle: " CTO ", Company: " "}, {}}, "CTO"},
		{"formula-like title stays text", []person.TimelinePosition{{JobTitle: "=1+1", Company: "@SUM"}}, "=1+1 at @SUM"},
	}
	for _, tt := range tests {
		p := &state.Person{Profile: &person.Profile{WorkPositionTimeline: tt.tl}}
		if got := cellOf(t, "workHistory", p); got != (cellValue{Text: tt.want}) {
			t.Errorf("%s: %+v, want %q", tt.name, got, tt.want)
		}
	}
	if got := cellOf(t, "workHistory", &state.Person{}); got != (cellValue{}) {
		t.Errorf("no profile: %+v", got)
	}
}

// TestRawDecodedOncePerRow: a row with several raw columns decodes the raw
// item once; the next person gets their own.
func TestRawDecodedOncePerRow(t *testing.T) {
	a, b := rawPerson(specRaw), &state.Person{}
	var rc rawCache
	n1 := rc.node(a)
	if n1 == nil || rc.node(a) != n1 {
		t.Fatal("the same person's node was decoded again")
	}
	if rc.node(b) != nil {
		t.Error("a person without raw data got the previous person's node")
	}
}

// newColumns are the columns of profile timelines, avatars and raw results.
var newColumns = []string{"fullName", "workHistory", "photoUrl", "topSkills", "experience", "education", "highlights",
	"contactsCount", "sharedContacts", "contactDistance", "permissions"}

// newColumnsFixture is the fixture with raw results for two people (one of
// them with formula-like text), a profile timeline and avatars.
func newColumnsFixture(path string) (*config.Config, *state.State) {
	cfg, st := fixture(path, &config.Sheet{Name: "New columns", From: []string{"search.cto", founder}, Dedupe: true, Columns: newColumns})
	ppl := st.People
	ppl["n-1"].Raw = json.RawMessage(specRaw)
	ppl["n-3"].Raw = json.RawMessage(`{"cursor": "x", "node": {
		"networkId": {"occupations": [{"category": "WORK_EXPERIENCE", "summary": "=1+1"}, {"category": "EDUCATION", "summary": "@SUM(A1)"}],
			"profileImage": [{"url": "javascript:alert(1)"}]},
		"highlight": {"currentTitle": ["-2+**3**"], "haves": ["+**1**"]},
		"profileSkills": {"topSkills": ["-rm", "@x"]},
		"sharedContacts": {"total": null}, "contactsCount": {"count": 0}, "contactDistance": {"distance": 3},
		"networkRelationship": {"permissions": []}}}`)
	ppl["n-2"].Enrichment.Result.ProfileImgURL = "https://img.example/siobhan_256x256.jpg"
	end := "Jan 2019"
	ppl["n-6"].Profile.ProfileImg = "https://img.example/max_256x256.jpg"
	ppl["n-6"].Profile.WorkPositionTimeline = []person.TimelinePosition{
		{JobTitle: "Founder", Company: "Muster AG", Date: "7 years, since Feb 2019", StartDate: "Feb 2019", DaysInPosition: 2800},
		{JobTitle: "Engineer", Company: "Acme", Date: "3 years", StartDate: "Mar 2016", EndDate: &end, DaysInPosition: 1040},
	}
	return cfg, st
}

// TestNewColumnsGolden writes the new columns to CSV and XLSX and compares
// both with golden files: the CSV as written, the workbook as its cells
// read back (type, formula, value) with excelize.
func TestNewColumnsGolden(t *testing.T) {
	dir := t.TempDir()
	cfg, st := newColumnsFixture("out/new.csv")
	cfg.Dir = dir
	got, err := writeExports(cfg, st, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(got[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/new-columns.csv", b)

	cfg, st = newColumnsFixture("out/new.xlsx")
	cfg.Dir = dir
	got, err = writeExports(cfg, st, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(got[0].Warnings) != 0 {
		t.Errorf("warnings: %q", got[0].Warnings)
	}
	f := openXLSX(t, got[0].Path)
	golden.Check(t, "testdata/new-columns.xlsx.txt", []byte(dumpCells(t, f, "New columns")))
}

// dumpCells lists every cell of a sheet: reference, type, formula (if any)
// and value as a reader shows it.
func dumpCells(t *testing.T, f *excelize.File, sheet string) string {
	t.Helper()
	var b strings.Builder
	for r, row := range rows(t, f, sheet) {
		for c := range row {
			ref, _ := excelize.CoordinatesToCellName(c+1, r+1)
			typ, err := f.GetCellType(sheet, ref)
			if err != nil {
				t.Fatal(err)
			}
			formula, _ := f.GetCellFormula(sheet, ref)
			val, _ := f.GetCellValue(sheet, ref)
			if val == "" && formula == "" {
				continue
			}
			fmt.Fprintf(&b, "%s\t%s\t", ref, cellTypeName(typ))
			if formula != "" {
				fmt.Fprintf(&b, "=%s\t", formula)
			}
			fmt.Fprintf(&b, "%q\n", val)
		}
	}
	return b.String()
}

func cellTypeName(t excelize.CellType) string {
	switch t {
	case excelize.CellTypeUnset:
		return "number"
	case excelize.CellTypeInlineString:
		return "inline"
	case excelize.CellTypeFormula:
		return "formula"
	case excelize.CellTypeSharedString:
		return "shared"
	case excelize.CellTypeBool:
		return "bool"
	}
	return fmt.Sprintf("type%d", t)
}

// TestNewColumnsLongCells: a raw text longer than a cell holds is cut in
// XLSX, with the marker and a warning, as every cell is; CSV keeps it whole.
func TestNewColumnsLongCells(t *testing.T) {
	long := strings.Repeat("Kubernetes ", 4000) // 44,000 characters
	raw := `{"node": {"highlight": {"haves": [` + strconv.Quote("**"+long+"**") + `]}}}`
	for _, path := range []string{"out/long.xlsx", "out/long.csv"} {
		dir := t.TempDir()
		cfg, st := fixture(path, &config.Sheet{Name: "Long", From: []string{"search.cto"}, Dedupe: true, Columns: []string{"networkId", "highlights"}})
		cfg.Dir = dir
		st.People["n-1"].Raw = json.RawMessage(raw)
		got, err := writeExports(cfg, st, Options{Now: fixedNow})
		if err != nil {
			t.Fatal(err)
		}
		want := "Skills: " + strings.TrimSpace(long)
		if strings.HasSuffix(path, ".csv") {
			if r := readCSV(t, got[0].Path, false); r[1][1] != want {
				t.Errorf("CSV cell of %d characters, want %d", len(r[1][1]), len(want))
			}
			continue
		}
		if w := got[0].Warnings; len(w) != 1 || !strings.Contains(w[0], "1 cell was longer than the 32,767 characters an Excel cell holds and was cut; it ends in") {
			t.Errorf("warnings = %q", w)
		}
		f := openXLSX(t, got[0].Path)
		v, _ := f.GetCellValue("Long", "B2")
		if wantCut := want[:maxCellChars-utf16Len(truncMarker)] + truncMarker; v != wantCut {
			t.Errorf("XLSX cell ends %q (%d characters), want it cut to %d ending in the marker", v[max(0, len(v)-60):], len(v), len(wantCut))
		}
	}
}

// FuzzRawColumns: any stored raw item gives every column a value without a
// panic; no text shows highlight markers, and a number cell is a number or
// empty.
func FuzzRawColumns(f *testing.F) {
	f.Add([]byte(specRaw))
	f.Add([]byte(`{"node": null}`))
	f.Add([]byte(`{"node": {"highlight": {"**k**": ["***a****"]}, "profileSkills": {"topSkills": [{"name": "**"}, {"x": "**"}]}}}`))
	f.Add([]byte(`{"node": {"contactsCount": {"count": 1e400}, "sharedContacts": {"total": -0.0}}}`))
	f.Add([]byte(`[1, 2`))
	cols := make([]column, len(config.ExtraColumns))
	for i, name := range config.ExtraColumns {
		c, err := columnFor(name, "")
		if err != nil {
			f.Fatal(err)
		}
		cols[i] = c
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p := &state.Person{Raw: raw}
		var rc rawCache
		for _, c := range cols {
			var v cellValue
			c.fill(p, &rc, &v)
			if c.kind == kindText && strings.Contains(v.Text, "**") {
				t.Errorf("%s shows highlight markers: %q", c.name, v.Text)
			}
			if c.kind == kindNumber && v.Empty && v.Num != 0 {
				t.Errorf("%s: an empty number cell holds %d", c.name, v.Num)
			}
		}
	})
}
