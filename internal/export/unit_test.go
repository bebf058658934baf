package export

import (
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

func TestEveryKnownColumnHasAValue(t *testing.T) {
	for _, name := range append(append([]string(nil), config.DefaultColumns...), config.ExtraColumns...) {
		if _, err := columnFor(name, ""); err != nil {
			t.Errorf("column %q: %v", name, err)
		}
	}
	if _, err := columnFor("shoeSize", ""); err == nil || !strings.Contains(err.Error(), "known columns are firstName,") {
		t.Errorf("unknown column: err = %v", err)
	}
}

func TestColumnValues(t *testing.T) {
	enriched := &state.Person{
		Lead: person.Lead{FullName: "From Search", PageName: "Ana María/ü?"},
		Enrichment: &state.Enrichment{EnrichedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Result: person.EnrichedProfile{
			FirstName: "Ana", Company: "Enriched Co", Email: "a@e.example", ValidationStatus: "valid", CompanyDomain: "e.example",
		}},
		FoundBy: []string{"profile.a", "search.b"},
	}
	profiled := &state.Person{
		Profile: &person.Profile{FullName: "Only Profile", NetworkURL: "https://n.example/p/1", Private: true,
			CurrentPosition: []person.Position{{JobTitle: "CEO", Company: "A"}, {Company: "B", Date: "2020"}, {}}},
	}
	bare := &state.Person{}
	tmpl := "https://network.example/profile/{pageName}"
	tests := []struct {
		col  string
		tmpl string
		p    *state.Person
		want cellValue
	}{
		{"fullName", "", enriched, cellValue{Text: "From Search"}},
		{"firstName", "", enriched, cellValue{Text: "Ana"}}, // lead empty: enrichment fills in
		{"company", "", enriched, cellValue{Text: "Enriched Co"}},
		{"fullName", "", profiled, cellValue{Text: "Only Profile"}},
		{"email", "", enriched, cellValue{Text: "a@e.example"}},
		{"email", "", bare, cellValue{}},
		{"validationStatus", "", enriched, cellValue{Text: "valid"}},
		{"companyDomain", "", enriched, cellValue{Text: "e.example"}},
		{"enrichedAt", "", enriched, cellValue{Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}},
		{"enrichedAt", "", bare, cellValue{Empty: true}},
		{"profileUrl", tmpl, enriched, cellValue{Text: "https://network.example/profile/Ana%20Mar%C3%ADa%2F%C3%BC%3F"}},
		{"profileUrl", "", enriched, cellValue{}},
		{"profileUrl", tmpl, profiled, cellValue{Text: "https://n.example/p/1"}}, // no page name: the profile's URL
		{"profileUrl", "", profiled, cellValue{Text: "https://n.example/p/1"}},
		{"foundIn", "", enriched, cellValue{Text: "profile.a, search.b"}},
		{"private", "", profiled, cellValue{Bool: true}},
		{"premiumProfile", "", profiled, cellValue{Bool: false}},
		{"premiumProfile", "", bare, cellValue{Empty: true}},
		{"currentPosition", "", profiled, cellValue{Text: "CEO at A; B (2020)"}},
		{"description", "", bare, cellValue{}},
	}
	for _, tt := range tests {
		c, err := columnFor(tt.col, tt.tmpl)
		if err != nil {
			t.Fatal(err)
		}
		var got cellValue
		c.fill(tt.p, &rawCache{}, &got)
		if !got.Time.Equal(tt.want.Time) || got.Text != tt.want.Text || got.Bool != tt.want.Bool || got.Empty != tt.want.Empty {
			t.Errorf("%s (template %q) = %+v, want %+v", tt.col, tt.tmpl, got, tt.want)
		}
	}
}

func TestHyperlinkFormula(t *testing.T) {
	tests := []struct {
		url, formula string
		ok           bool
	}{
		{"https://network.example/p/Max", `HYPERLINK("https://network.example/p/Max")`, true},
		{"HTTP://x.example", `HYPERLINK("HTTP://x.example")`, true},
		{`https://x.example/a"),CMD("calc`, `HYPERLINK("https://x.example/a""),CMD(""calc")`, true},
		{"javascript:alert(1)", "", false},
		{"file:///etc/passwd", "", false},
		{"=cmd|' /C calc'!A0", "", false},
		{"https://x.example/\nline", "", false},
		{"https://x.example/" + strings.Repeat("a", 300), "", false},
	}
	for _, tt := range tests {
		f, ok := hyperlinkFormula(tt.url)
		if f != tt.formula || ok != tt.ok {
			t.Errorf("hyperlinkFormula(%q) = %q, %v; want %q, %v", tt.url, f, ok, tt.formula, tt.ok)
		}
	}
}

func TestSheetNamer(t *testing.T) {
	n := newSheetNamer()
	n.Take("summary")
	tests := []struct {
		want string
		part int
		got  string
	}{
		{"CTOs", 1, "CTOs"},
		{"ctos", 1, "ctos (2)"}, // Excel compares names case-insensitively
		{"CTOs", 2, "CTOs (3)"}, // (2) is taken
		{"a/b:c?d*e[f]", 1, "a_b_c_d_e_f_"},
		{"'quoted'", 1, "quoted"},
		{"", 1, "Sheet"},
		{"Summary", 1, "Summary (2)"},
		{strings.Repeat("🚀", 20), 1, strings.Repeat("🚀", 15)},
		{strings.Repeat("x", 40), 2, strings.Repeat("x", 27) + " (2)"},
	}
	for _, tt := range tests {
		if got := n.name(tt.want, tt.part); got != tt.got {
			t.Errorf("name(%q, %d) = %q, want %q", tt.want, tt.part, got, tt.got)
		}
	}
}

func TestFitCell(t *testing.T) {
	short := strings.Repeat("x", maxCellChars)
	if got, cut := fitCell(short); cut || got != short {
		t.Errorf("a cell at the limit was cut")
	}
	// 32,767 bytes of umlauts are far fewer characters: not cut.
	if _, cut := fitCell(strings.Repeat("ä", maxCellChars)); cut {
		t.Errorf("a cell under the limit in characters was cut")
	}
	got, cut := fitCell(strings.Repeat("🚀", maxCellChars))
	if !cut || utf16Len(got) > maxCellChars || !strings.HasSuffix(got, truncMarker) {
		t.Errorf("cut = %v, length %d", cut, utf16Len(got))
	}
}

func TestTableName(t *testing.T) {
	for _, tt := range []struct {
		sheet string
		i     int
		want  string
	}{
		{"All leads", 2, "Leads_2_all_leads"},
		{"🚀", 1, "Leads_1"},
		{"Köln", 3, "Leads_3_koln"},
	} {
		if got := tableName(tt.sheet, tt.i); got != tt.want {
			t.Errorf("tableName(%q, %d) = %q, want %q", tt.sheet, tt.i, got, tt.want)
		}
	}
}

func FuzzSheetNamer(f *testing.F) {
	for _, s := range []string{"CTOs", "", "'", "a/b", strings.Repeat("🚀", 40), "Summary", "x'"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, want string, part int) {
		part = 1 + (part&0xffff)%1000
		n := newSheetNamer()
		got := n.name(want, part)
		if got == "" || utf16Len(got) > maxSheetName || strings.ContainsAny(got, `:\/?*[]`) ||
			strings.HasPrefix(got, "'") || strings.HasSuffix(got, "'") {
			t.Fatalf("name(%q, %d) = %q: not a valid sheet name", want, part, got)
		}
		if again := n.name(want, part); strings.EqualFold(again, got) {
			t.Fatalf("name(%q) twice gave %q both times", want, got)
		}
	})
}

func FuzzHyperlinkFormula(f *testing.F) {
	for _, s := range []string{"https://x.example/a", `https://x.example/"),CMD("`, "javascript:x", "http://\"\"\""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		formula, ok := hyperlinkFormula(u)
		if !ok {
			return
		}
		lit, found := strings.CutPrefix(formula, `HYPERLINK("`)
		lit, found2 := strings.CutSuffix(lit, `")`)
		if !found || !found2 {
			t.Fatalf("formula %q is not HYPERLINK(\"...\")", formula)
		}
		// Inside the literal every quote is doubled: nothing can end it early.
		if strings.Contains(strings.ReplaceAll(lit, `""`, ""), `"`) {
			t.Fatalf("formula %q has an unescaped quote", formula)
		}
		if strings.ReplaceAll(lit, `""`, `"`) != u {
			t.Fatalf("formula %q does not hold %q", formula, u)
		}
	})
}

func FuzzNeutralise(f *testing.F) {
	for _, s := range []string{"=1+1", "abc", "", "\t", "-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := neutralise(s)
		if got != "" && strings.ContainsRune("=+-@\t\r", rune(got[0])) {
			t.Fatalf("neutralise(%q) = %q still starts like a formula", s, got)
		}
		if got != s && got != "'"+s {
			t.Fatalf("neutralise(%q) = %q changed more than a leading apostrophe", s, got)
		}
	})
}
