package catalog

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agext/levenshtein"

	"github.com/leadsync/leadsync/internal/api"
)

func TestDefaultIsTheSpecList(t *testing.T) {
	c := Default()
	if err := Check(c.Fields); err != nil {
		t.Fatal(err)
	}
	if len(c.Fields) != 15 || c.Source != SourceBuiltin {
		t.Fatalf("got %d fields from %q, want 15 built-in", len(c.Fields), c.Source)
	}
	want := map[string]int{"disciplineFilter": 22, "industryFilter": 23, "levelFilter": 6,
		"currentStatusCodeFilter": 10, "languageFilter": 10, "countryFilter": 10}
	for _, f := range c.Fields {
		if n, ok := want[f.SearchParameter]; ok {
			if f.Type != api.FieldArray || len(f.PossibleValues) != n {
				t.Errorf("%s: type %s with %d values, want array with %d", f.SearchParameter, f.Type, len(f.PossibleValues), n)
			}
		} else if f.Type != api.FieldText {
			t.Errorf("%s: type %s, want text", f.SearchParameter, f.Type)
		}
	}
	// A fresh copy each time.
	c.Fields[0].SearchParameter = "changed"
	if Default().Fields[0].SearchParameter != "keywords" {
		t.Fatal("Default shares its slice between calls")
	}
}

func TestAttributeName(t *testing.T) {
	for in, want := range map[string]string{
		"keywords":                "keywords",
		"previousCompany":         "previous_company",
		"currentStatusCodeFilter": "current_status_code_filter",
		"searchURL":               "search_url",
		"URLFilter":               "url_filter",
		"level2Filter":            "level2_filter",
		"city":                    "city",
	} {
		if got := AttributeName(in); got != want {
			t.Errorf("AttributeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestByAttribute(t *testing.T) {
	c := Default()
	f, ok := c.ByAttribute("current_status_code_filter")
	if !ok || f.SearchParameter != "currentStatusCodeFilter" {
		t.Fatalf("got %+v, %v", f, ok)
	}
	if _, ok := c.ByAttribute("currentStatusCodeFilter"); ok {
		t.Fatal("the camelCase name must not be an attribute")
	}
}

func TestNearest(t *testing.T) {
	countries := Default().Fields[14].PossibleValues
	tests := []struct {
		value string
		cands []string
		n     int
		want  []string
	}{
		{"Germny", countries, 3, []string{"Germany"}},
		{"germany", countries, 1, []string{"Germany"}},
		{"USA", countries, 3, nil},
		{"United States", countries, 2, []string{"United States of America"}},
		{"industry_filtr", []string{"industry_filter", "level_filter"}, 2, []string{"industry_filter"}},
		{"country", []string{"city", "country_filter"}, 2, []string{"country_filter"}},
		{"zzzzzzzz", []string{"city"}, 2, nil},
	}
	for _, tt := range tests {
		if got := Nearest(tt.value, tt.cands, tt.n); !reflect.DeepEqual(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("Nearest(%q) = %q, want %q", tt.value, got, tt.want)
		}
	}
}

func TestCacheRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, CachePath)
	if c, err := LoadCache(path); c != nil || err != nil {
		t.Fatalf("missing cache: got %v, %v; want nil, nil", c, err)
	}
	fields := append(Default().Fields, api.Field{FieldName: "Zip", SearchParameter: "zipCode", Type: "text"})
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if err := SaveCache(path, fields, now); err != nil {
		t.Fatal(err)
	}
	gi, err := os.ReadFile(filepath.Join(dir, ".leadsync", ".gitignore"))
	if err != nil || !slices.Contains(strings.Split(string(gi), "\n"), "*") {
		t.Fatalf(".gitignore: %q, %v", gi, err)
	}
	c, err := LoadCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.Fields, fields) || !c.FetchedAt.Equal(now) || c.Source != path {
		t.Fatalf("round trip changed the catalog: %+v", c)
	}
	if _, ok := c.ByAttribute("zip_code"); !ok {
		t.Fatal("a live field must become an attribute")
	}
	// A second save into an existing directory leaves a user's .gitignore alone.
	os.WriteFile(filepath.Join(dir, ".leadsync", ".gitignore"), []byte("mine\n"), 0o644)
	if err := SaveCache(path, fields, now); err != nil {
		t.Fatal(err)
	}
	if gi, _ := os.ReadFile(filepath.Join(dir, ".leadsync", ".gitignore")); string(gi) != "mine\n" {
		t.Fatalf(".gitignore overwritten: %q", gi)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, ".leadsync"))
	if len(entries) != 2 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestLoadCacheErrors(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"corrupt": "{not json",
		"empty":   `{"fields": []}`,
		"badtype": `{"fields": [{"search_parameter": "x", "type": "blob"}]}`,
	} {
		p := filepath.Join(dir, name+".json")
		os.WriteFile(p, []byte(body), 0o644)
		_, err := LoadCache(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "fields --refresh") {
			t.Errorf("%s: err = %v; want one naming the file and the fix", name, err)
		}
	}
	if err := SaveCache(filepath.Join(dir, "x.json"), nil, time.Time{}); err == nil {
		t.Error("SaveCache accepted an empty list")
	}
}

// TestLevenshteinDistances pins the distances the did-you-mean thresholds
// (here, in cli's flag and address hints) were chosen for: plain
// Levenshtein over runes, each edit costing 1, as agext/levenshtein
// computes with nil Params.
func TestLevenshteinDistances(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"auto-aprove", "auto-approve", 1},
		{"nopeople", "no-people", 1}, {"jsno", "json", 2}, {"über", "uber", 1},
		{"日本", "日本語", 1},
	}
	for _, tt := range tests {
		if got := levenshtein.Distance(tt.a, tt.b, nil); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestCacheIntoExistingStateFolder: a .leadsync folder that exists without
// a .gitignore (made by hand, or by an older version) gets one when the
// cache is saved, by the same rule as the state's folder.
func TestCacheIntoExistingStateFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".leadsync"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := SaveCache(filepath.Join(dir, CachePath), Default().Fields, time.Now()); err != nil {
		t.Fatal(err)
	}
	gi, err := os.ReadFile(filepath.Join(dir, ".leadsync", ".gitignore"))
	if err != nil || !slices.Contains(strings.Split(string(gi), "\n"), "*") {
		t.Fatalf(".gitignore: %q, %v", gi, err)
	}
}
