package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
)

// TestSplitBy checks how split_by becomes dimensions: a dimension the
// search sets to several values splits across them, one set to a single
// value is skipped, any other splits across all its possible values, in
// split_by's order; a refreshed catalog's array filters count.
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
