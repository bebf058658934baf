package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
)

// TestSplitBy checks how split_by becomes dimensions: a dimension the
// search sets to several values splits across them, one set to a single
// value is skipped, any other splits across all its possible values, in
// split_by's order; a filter in the query of search_url counts as one
// written as an attribute; a refreshed catalog's array filters count.
func TestSplitBy(t *testing.T) {
	cat := catalog.Default()
	possible := func(attr string) []string {
		f, ok := cat.ByAttribute(attr)
		if !ok {
			t.Fatalf("no %s in the catalog", attr)
		}
		return f.PossibleValues
	}
	live := catalog.Default()
	live.Source = ".leadsync/fields.json"
	live.Fields = append(live.Fields, api.Field{FieldName: "Size", SearchParameter: "companySizeFilter", Type: api.FieldArray, PossibleValues: []string{"1-10", "11-50"}})
	tests := []struct {
		name    string
		body    string
		cat     *catalog.Catalog
		want    []SplitDimension
		max     int
		names   []string
		noSplit bool
		warn    string
	}{
		{name: "none", body: `keywords = "x"`, noSplit: true},
		{name: "all values", body: `
  keywords    = "Engineer"
  max_results = 5000
  split_by    = ["industry_filter", "level_filter"]`,
			want: []SplitDimension{
				{Attribute: "industry_filter", Param: "industryFilter", Values: possible("industry_filter")},
				{Attribute: "level_filter", Param: "levelFilter", Values: possible("level_filter")},
			}, max: 5000, names: []string{"industry_filter", "level_filter"}},
		{name: "order kept", body: `
  keywords = "Engineer"
  split_by = ["level_filter", "country_filter"]`,
			want: []SplitDimension{
				{Attribute: "level_filter", Param: "levelFilter", Values: possible("level_filter")},
				{Attribute: "country_filter", Param: "countryFilter", Values: possible("country_filter")},
			}, names: []string{"level_filter", "country_filter"}},
		{name: "several values set: split across them", body: `
  keywords       = "Engineer"
  country_filter = ["Austria", "Germany", "Switzerland"]
  split_by       = ["country_filter", "level_filter"]`,
			want: []SplitDimension{
				{Attribute: "country_filter", Param: "countryFilter", Values: []string{"Austria", "Germany", "Switzerland"}},
				{Attribute: "level_filter", Param: "levelFilter", Values: possible("level_filter")},
			}, names: []string{"country_filter", "level_filter"}},
		{name: "one value set: skipped", body: `
  keywords       = "Engineer"
  country_filter = ["Germany"]
  split_by       = ["country_filter", "industry_filter"]`,
			want: []SplitDimension{
				{Attribute: "industry_filter", Param: "industryFilter", Values: possible("industry_filter")},
			}, names: []string{"country_filter", "industry_filter"}},
		{name: "every dimension skipped", body: `
  keywords       = "Engineer"
  country_filter = ["Germany"]
  split_by       = ["country_filter"]`,
			want: []SplitDimension{}, names: []string{"country_filter"}, warn: "split_by splits nothing"},
		{name: "one value in search_url: skipped", body: `
  search_url = "https://network.example/search?keywords=Engineer&industryFilter=Internet%20and%20IT"
  split_by   = ["industry_filter", "level_filter"]`,
			want:  []SplitDimension{{Attribute: "level_filter", Param: "levelFilter", Values: possible("level_filter")}},
			names: []string{"industry_filter", "level_filter"}},
		{name: "several values in search_url: split across them, each once", body: `
  search_url = "https://network.example/search?keywords=Engineer&industryFilter=Internet+and+IT&industryFilter=Consulting&industryFilter=Internet%20and%20IT"
  split_by   = ["level_filter", "industry_filter"]`,
			want: []SplitDimension{
				{Attribute: "level_filter", Param: "levelFilter", Values: possible("level_filter")},
				{Attribute: "industry_filter", Param: "industryFilter", Values: []string{"Internet and IT", "Consulting"}},
			}, names: []string{"level_filter", "industry_filter"}},
		{name: "search_url and an attribute fix the two dimensions", body: `
  search_url     = "https://network.example/search?keywords=Engineer&countryFilter=Germany"
  level_filter   = ["Senior"]
  split_by       = ["country_filter", "level_filter"]`,
			want: []SplitDimension{}, names: []string{"country_filter", "level_filter"}, warn: "split_by splits nothing"},
		{name: "text filters in search_url do not count", body: `
  search_url = "https://network.example/search?keywords=Engineer&city=Berlin"
  split_by   = ["country_filter"]`,
			want:  []SplitDimension{{Attribute: "country_filter", Param: "countryFilter", Values: possible("country_filter")}},
			names: []string{"country_filter"}},
		{name: "live catalog", cat: live, body: `
  keywords = "Engineer"
  split_by = ["company_size_filter"]`,
			want:  []SplitDimension{{Attribute: "company_size_filter", Param: "companySizeFilter", Values: []string{"1-10", "11-50"}}},
			names: []string{"company_size_filter"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := memFS(map[string]string{"main.leads.hcl": base + "\nsearch \"s\" {\n" + tt.body + "\n}\n"})
			cfg, diags := Load(LoadOptions{Dir: "/cfg", FS: fs, Catalog: tt.cat})
			if diags.HasErrors() || (tt.warn == "") != (len(diags) == 0) || (tt.warn != "" && !strings.Contains(diags.Error(), tt.warn)) {
				t.Fatalf("diagnostics %v; want warning %q", diags, tt.warn)
			}
			s := cfg.Searches[0]
			if tt.noSplit {
				if s.SplitBy != nil {
					t.Errorf("SplitBy = %v, want nil", s.SplitBy)
				}
				return
			}
			if diff := cmp.Diff(tt.want, s.SplitBy); diff != "" {
				t.Errorf("SplitBy (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.names, s.SplitNames); diff != "" {
				t.Errorf("SplitNames (-want +got):\n%s", diff)
			}
			if s.MaxResults != tt.max {
				t.Errorf("MaxResults = %d, want %d", s.MaxResults, tt.max)
			}
		})
	}
}

// TestSearchURLFilters checks the filters in the query of search_url as the
// attributes are checked: array values against the catalog (did-you-mean,
// the list of values, a hint for values joined by commas), a filter set
// both in the URL and as an attribute, and one warning naming the
// parameters the catalog does not know. Every diagnostic points at
// search_url (or the attribute set twice).
func TestSearchURLFilters(t *testing.T) {
	tests := []struct {
		name  string
		url   string
		extra string
		line  int // of the diagnostic; search_url is on line 5
		sev   hcl.DiagnosticSeverity
		want  []string // substrings of "summary: detail"; none: no diagnostic
	}{
		{name: "known values", url: "keywords=CTO&countryFilter=Germany&countryFilter=Austria&levelFilter=Senior&city=Berlin"},
		{name: "plus for space", url: "keywords=CTO&industryFilter=Internet+and+IT"},
		{name: "value not in the catalog", url: "keywords=CTO&countryFilter=Deutschland", line: 5, sev: hcl.DiagError,
			want: []string{"Invalid countryFilter value in search_url", `"Deutschland" is not one of the values the service accepts for countryFilter in the query of search_url (the built-in field list). Valid values: "Austria", "China"`}},
		{name: "typo", url: "keywords=CTO&countryFilter=Germay", line: 5, sev: hcl.DiagError,
			want: []string{`"Germay" is not one of the values`, `Did you mean "Germany"?`}},
		{name: "empty value", url: "keywords=CTO&levelFilter=", line: 5, sev: hcl.DiagError,
			want: []string{`"" is not one of the values the service accepts for levelFilter`}},
		{name: "values joined by a comma", url: "keywords=CTO&countryFilter=Germany,Austria", line: 5, sev: hcl.DiagError,
			want: []string{`"Germany,Austria" is not one of`, "A URL gives each value as a parameter of its own: countryFilter=Germany&countryFilter=Austria."}},
		{name: "a value holding a comma", url: "keywords=CTO&industryFilter=Auditing,%20tax%20and%20law"},
		{name: "set twice", url: "keywords=CTO&countryFilter=Germany", extra: `country_filter = ["Austria"]`, line: 6, sev: hcl.DiagError,
			want: []string{"Filter set twice", "country_filter is set here and as countryFilter in the query of search_url (main.leads.hcl:5);"}},
		{name: "text filter set twice", url: "keywords=CTO&city=Berlin", extra: `city = "Hamburg"`, line: 6, sev: hcl.DiagError,
			want: []string{"city is set here and as city in the query of search_url"}},
		{name: "attribute set to null is unset", url: "keywords=CTO&countryFilter=Germany", extra: `country_filter = null`},
		{name: "unknown parameters", url: "keywords=CTO&industryFiltr=Consulting&sc_o=da980", line: 5, sev: hcl.DiagWarning,
			want: []string{"Unknown parameter in search_url", `The query of search_url has "industryFiltr", "sc_o", which are not search parameters of the service (the built-in field list)`,
				`Did you mean "industryFilter" for "industryFiltr"?`, "The search parameters are keywords, name, company,"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := fmt.Sprintf("api {\n  sandbox = true\n}\nsearch \"s\" {\n  search_url = %q\n  %s\n}\n", "https://network.example/search?"+tt.url, tt.extra)
			_, diags := Load(LoadOptions{Dir: "/cfg", FS: memFS(map[string]string{"main.leads.hcl": body})})
			if len(tt.want) == 0 {
				if len(diags) > 0 {
					t.Fatalf("unexpected diagnostics: %v", diags)
				}
				return
			}
			if len(diags) != 1 {
				t.Fatalf("want one diagnostic, got %d: %v", len(diags), diags)
			}
			d := diags[0]
			if d.Severity != tt.sev || d.Subject == nil || d.Subject.Start.Line != tt.line {
				t.Errorf("severity %v at %v; want %v on line %d", d.Severity, d.Subject, tt.sev, tt.line)
			}
			for _, w := range tt.want {
				if text := d.Summary + ": " + d.Detail; !strings.Contains(text, w) {
					t.Errorf("diagnostic %q lacks %q", text, w)
				}
			}
		})
	}
}
