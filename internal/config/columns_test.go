package config

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestRawColumnWarning: a sheet showing columns of raw search results with
// no raw search among its sources draws one warning at the first such
// column, never an error; a raw instance among its sources is enough.
func TestRawColumnWarning(t *testing.T) {
	blocks := `
search "plain" {
  keywords = "CTO"
}
search "cities" {
  for_each = toset(["Berlin", "Hamburg"])
  keywords = "CTO"
  city     = each.value
  raw      = each.value == "Hamburg"
}
profile "founder" {
  page_name = "Max_Mustermann"
}
`
	sheet := func(from, columns string) string {
		return "export \"x\" {\n  path = \"out/x.xlsx\"\n  sheet \"S\" {\n    from    = " + from + "\n    columns = " + columns + "\n  }\n}\n"
	}
	tests := []struct {
		name    string
		api     string
		sheet   string
		want    []string // substrings of the one warning; nil: no warning
		wantCol int      // column of the warning's start
	}{
		{"plain search", base, sheet(`[search.plain, profile.founder]`, `["fullName", "photoUrl", "highlights", "topSkills"]`),
			[]string{"Raw search results fill highlights, topSkills, but no search in this sheet's from (search.plain, profile.founder) sets raw = true", "Set raw = true on a search of the sheet (first generation only)"}, 40},
		{"one raw instance of the block", base, sheet(`[search.plain, search.cities]`, `["contactsCount"]`), nil, 0},
		{"the raw instance itself", base, sheet(`[search.cities["Hamburg"]]`, `["education", "experience"]`), nil, 0},
		{"only the plain instance", base, sheet(`[search.cities["Berlin"]]`, `["permissions"]`),
			[]string{`Raw search results fill permissions, but no search in this sheet's from (search.cities["Berlin"])`}, 16},
		{"profile and photo only", base, sheet(`[profile.founder]`, `["fullName", "workHistory", "photoUrl"]`), nil, 0},
		{"default columns", base, "export \"x\" {\n  path = \"out/x.xlsx\"\n  sheet \"S\" {\n    from = [search.plain]\n  }\n}\n", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := memFS(map[string]string{"main.leads.hcl": tt.api + blocks + tt.sheet})
			cfg, diags := Load(LoadOptions{FS: fs, Dir: "/cfg"})
			if diags.HasErrors() || cfg == nil {
				t.Fatalf("errors: %v", diags)
			}
			var warns []*hcl.Diagnostic
			for _, d := range diags {
				if d.Severity == hcl.DiagWarning {
					warns = append(warns, d)
				}
			}
			if tt.want == nil {
				if len(warns) != 0 {
					t.Fatalf("unexpected warnings: %v", warns)
				}
				return
			}
			if len(warns) != 1 {
				t.Fatalf("want one warning, got %v", warns)
			}
			w := warns[0]
			text := w.Summary + ": " + w.Detail
			for _, s := range tt.want {
				if !strings.Contains(text, s) {
					t.Errorf("warning %q lacks %q", text, s)
				}
			}
			if w.Subject == nil || w.Subject.Filename != "main.leads.hcl" || w.Subject.Start.Column != tt.wantCol {
				t.Errorf("warning at %v, want main.leads.hcl column %d", w.Subject, tt.wantCol)
			}
			line := strings.Split(tt.sheet, "\n")[w.Subject.Start.Line-strings.Count(tt.api+blocks, "\n")-1]
			if !strings.Contains(line, "columns") {
				t.Errorf("warning on line %q, want the columns line", line)
			}
		})
	}
}

// TestRawColumnWarningGeneration2: with generation = 2 there are no raw
// results at all; the warning says what raw = true would need.
func TestRawColumnWarningGeneration2(t *testing.T) {
	src := "api {\n  sandbox = true\n  generation = 2\n}\nsearch \"s\" {\n  keywords = \"CTO\"\n}\n" +
		"export \"x\" {\n  path = \"out/x.csv\"\n  sheet \"S\" {\n    from    = [search.s]\n    columns = [\"sharedContacts\"]\n  }\n}\n"
	_, diags := Load(LoadOptions{FS: memFS(map[string]string{"main.leads.hcl": src}), Dir: "/cfg"})
	if diags.HasErrors() || len(diags) != 1 {
		t.Fatalf("want one warning, got %v", diags)
	}
	if !strings.Contains(diags[0].Detail, "generation = 2, which has no raw results: raw = true needs generation = 1") {
		t.Errorf("detail = %q", diags[0].Detail)
	}
}

// TestNewColumnsDidYouMean: a near miss of a new column name is an error
// that names it.
func TestNewColumnsDidYouMean(t *testing.T) {
	for typo, want := range map[string]string{
		"workhistory":    "workHistory",
		"photoURL":       "photoUrl",
		"topSkill":       "topSkills",
		"contactCount":   "contactsCount",
		"contactDistanc": "contactDistance",
		"highlight":      "highlights",
	} {
		src := base + "search \"s\" {\n  keywords = \"CTO\"\n}\nexport \"x\" {\n  path = \"out/x.csv\"\n  sheet \"S\" {\n    from    = [search.s]\n    columns = [\"" + typo + "\"]\n  }\n}\n"
		_, diags := Load(LoadOptions{FS: memFS(map[string]string{"main.leads.hcl": src}), Dir: "/cfg"})
		errs := diags.Errs()
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), `Did you mean "`+want+`"?`) {
			t.Errorf("columns = [%q]: %v, want one error naming %q", typo, errs, want)
		}
	}
}
