package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/testenv"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  bool
	}{
		{"36h", 36 * time.Hour, false},
		{"7d", 7 * 24 * time.Hour, false},
		{"2w", 14 * 24 * time.Hour, false},
		{"1d12h", 36 * time.Hour, false},
		{"1.5d", 36 * time.Hour, false},
		{"90s", 90 * time.Second, false},
		{"1m30s", 90 * time.Second, false},
		{"250ms", 250 * time.Millisecond, false},
		{" 7d ", 7 * 24 * time.Hour, false},
		{"0", 0, false},
		{"", 0, true},
		{"7", 0, true},
		{"7days", 0, true},
		{"d", 0, true},
		{"-1d", 0, true},
		{"1y", 0, true},
		{"1.2.3h", 0, true},
		{"99999999999w", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		7 * 24 * time.Hour: "1w", 36 * time.Hour: "1d12h", 90 * time.Second: "1m30s", 0: "0s",
	} {
		if got := FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
		if back, err := ParseDuration(FormatDuration(d)); err != nil || back != d {
			t.Errorf("round trip of %v: %v, %v", d, back, err)
		}
	}
}

func TestBaseURLRules(t *testing.T) {
	tests := []struct {
		url string
		ok  bool
	}{
		{"https://api.example.com", true},
		{"https://api.example.com/prefix/", true},
		{"http://api.example.com", false},
		{"http://localhost:8080", true},
		{"http://LOCALHOST", true},
		{"http://127.0.0.1:9000", true},
		{"http://127.10.20.30", true},
		{"http://[::1]:8080", true},
		{"http://128.0.0.1", false},
		{"http://localhost.example.com", false},
		{"ftp://api.example.com", false},
		{"api.example.com", false},
		{"https://", false},
		{"https://api.example.com?x=1", false},
		{"https://user:pw@api.example.com", false},
		{"http://127.0.0.1:", false},
		{"https://api.example.com:/v1", false},
	}
	for _, tt := range tests {
		if err := CheckBaseURL(tt.url); (err == nil) != tt.ok {
			t.Errorf("CheckBaseURL(%q) = %v, want ok=%v", tt.url, err, tt.ok)
		}
	}
}

// TestBasePath: an address that already ends in a path leadsync adds to
// each call is an error saying what to drop; a prefix of its own is fine.
// The first generation adds /v1/...; the second adds /search and /scrap
// and has no /v1.
func TestBasePath(t *testing.T) {
	tests := []struct {
		url  string
		gen2 bool
		want string // "" when fine, else the address without the path
	}{
		{"https://api.example.com", false, ""},
		{"https://api.example.com/", false, ""},
		{"https://api.example.com/prefix", false, ""},
		{"https://api.example.com/v1x", false, ""},
		{"https://api.example.com/v2", false, ""},
		{"https://api.example.com/v1", false, `Drop /v1: "https://api.example.com"`},
		{"https://api.example.com/v1/", false, `Drop /v1: "https://api.example.com"`},
		{"https://api.example.com/V1", false, `Drop /V1: "https://api.example.com"`},
		{"https://api.example.com/gateway/v1", false, `Drop /v1: "https://api.example.com/gateway"`},
		{"https://api.example.com/v1/scrap", false, `Drop /v1/scrap: "https://api.example.com"`},
		{"https://api.example.com/v1/billing", false, `Drop /v1/billing: "https://api.example.com"`},
		{"http://127.0.0.1:8787/v1", false, `Drop /v1: "http://127.0.0.1:8787"`},
		{"https://api.example.com/search", false, ""},
		{"https://v2.example.com", true, ""},
		{"https://v2.example.com/search", true, `Drop /search: "https://v2.example.com"`},
		{"https://v2.example.com/scrap/", true, `Drop /scrap: "https://v2.example.com"`},
		{"https://v2.example.com/v1", true, `Drop /v1: "https://v2.example.com"`},
		{"https://v2.example.com/v2", true, ""},
	}
	for _, tt := range tests {
		err := CheckBasePath(tt.url, tt.gen2)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckBasePath(%q, gen2=%v) = %v; want no error", tt.url, tt.gen2, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckBasePath(%q, gen2=%v) = %v; want %q", tt.url, tt.gen2, err, tt.want)
		}
	}
	err := CheckBasePath("https://api.example.com/v1", false)
	if want := "these would go to /v1/v1/scrap"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v does not say %q", err, want)
	}
}

func mustLoad(t *testing.T, opts LoadOptions) *Config {
	t.Helper()
	cfg, diags := Load(opts)
	for _, d := range diags {
		t.Errorf("unexpected diagnostic: %s", d.Error())
	}
	if t.Failed() {
		t.FailNow()
	}
	return cfg
}

func memFS(files map[string]string) fstest.MapFS {
	fs := fstest.MapFS{}
	for name, body := range files {
		fs[name] = &fstest.MapFile{Data: []byte(body)}
	}
	return fs
}

func TestQuickstartDefaults(t *testing.T) {
	cfg := mustLoad(t, LoadOptions{Dir: "../../examples/quickstart"})
	want := API{Generation: api.Gen1, RateLimit: 1, Parallelism: api.DefaultParallelism, Timeout: 90 * time.Second,
		CreditsPerEnrich: 1, MaxCredits: 500, MinRemainingRequests: 100, Sandbox: true}
	got := cfg.API
	got.DeclRange = hcl.Range{}
	if got != want {
		t.Errorf("API = %+v\nwant %+v", got, want)
	}
	if cfg.Settings.StatePath != DefaultStatePath || cfg.Catalog.Source != catalog.SourceBuiltin {
		t.Errorf("settings %+v, catalog %q", cfg.Settings, cfg.Catalog.Source)
	}
	// Columns not given are the defaults (the CI example's "All CTOs").
	ci := mustLoad(t, LoadOptions{Dir: "../../examples/ci/leads"})
	if got := ci.Exports[0].Sheets[1]; !cmp.Equal(got.Columns, DefaultColumns) || !got.Dedupe {
		t.Errorf("sheet without columns: %+v", got)
	}
	if len(cfg.Searches) != 2 || len(cfg.Enriches) != 1 || len(cfg.Exports) != 1 {
		t.Fatalf("got %d searches, %d enriches, %d exports", len(cfg.Searches), len(cfg.Enriches), len(cfg.Exports))
	}
	all := cfg.Exports[0].Sheets[1]
	if !contains(all.Columns, "profileUrl") || !all.Dedupe || all.OnlyNew {
		t.Errorf("All leads sheet: %+v", all)
	}
	if cfg.Settings.ProfileURLTemplate == "" {
		t.Error("the quickstart sets no profile link template: its workbook would have no profile links")
	}
	if got := cfg.Enriches[0].From; !cmp.Equal(got, []string{"search.cto_berlin", "search.engineers"}) {
		t.Errorf("enrich from = %q: the CTOs must come first", got)
	}
	if cfg.Exports[0].Format != "xlsx" || cfg.Exports[0].Path != "out/quickstart.xlsx" {
		t.Errorf("export: %+v", cfg.Exports[0])
	}
	if len(cfg.Hash) != 64 {
		t.Errorf("Hash = %q", cfg.Hash)
	}
}

func TestTeamExample(t *testing.T) {
	cfg := mustLoad(t, LoadOptions{Dir: "../../examples/team"})
	var addrs []string
	for _, s := range cfg.Searches {
		addrs = append(addrs, s.Address)
	}
	wantAddrs := []string{
		`search.consultants`,
		`search.cto["Berlin"]`, `search.cto["Hamburg"]`, `search.cto["Munich"]`,
		`search.head_of_sales["Berlin"]`, `search.head_of_sales["Hamburg"]`, `search.head_of_sales["Munich"]`,
	}
	if diff := cmp.Diff(wantAddrs, addrs); diff != "" {
		t.Errorf("search addresses (-want +got):\n%s", diff)
	}
	cto := cfg.Searches[2]
	wantParams := map[string]any{
		"keywords": "CTO", "city": "Hamburg",
		"industryFilter": []string{"Internet and IT", "Telecommunication"},
		"levelFilter":    []string{"Executive", "Manager"},
		"countryFilter":  []string{"Germany", "Austria", "Switzerland"},
	}
	if diff := cmp.Diff(wantParams, cto.Request.Params); diff != "" {
		t.Errorf("params (-want +got):\n%s", diff)
	}
	if cto.MaxResults != 100 || cto.Refresh != 14*24*time.Hour || cto.Block != "search.cto" || cto.Name != "cto" {
		t.Errorf("search: %+v", cto)
	}
	if got := cfg.Searches[0].Request.Params["searchUrl"]; !strings.Contains(fmt.Sprint(got), "keywords=Strategy") {
		t.Errorf("searchUrl = %v", got)
	}
	var profiles []string
	for _, p := range cfg.Profiles {
		profiles = append(profiles, p.Address+"="+p.PageName)
	}
	wantProfiles := []string{`profile.advisor=Erika_Musterfrau`, `profile.founder["erika"]=Erika_Musterfrau`, `profile.founder["max"]=Max_Mustermann`}
	if diff := cmp.Diff(wantProfiles, profiles); diff != "" {
		t.Errorf("profiles (-want +got):\n%s", diff)
	}
	e := cfg.Enriches[0]
	if e.Limit != 50 || e.Refresh != 180*24*time.Hour || !cmp.Equal(e.From, []string{"search.cto", "search.head_of_sales", "profile.founder"}) {
		t.Errorf("enrich: %+v", e)
	}
	if cfg.API.MaxCredits != 150 || cfg.API.Timeout != time.Minute {
		t.Errorf("api: %+v", cfg.API)
	}
	if cfg.Settings.ProfileURLTemplate != "https://network.example/profile/{pageName}" {
		t.Errorf("template %q", cfg.Settings.ProfileURLTemplate)
	}
	if got := cfg.Resolve(e.From); len(got) != 8 {
		t.Errorf("Resolve(from) = %v; want 3+3 searches and 2 founders", got)
	}
	if x := cfg.Exports[1]; x.Format != "csv" || len(x.Sheets) != 1 {
		t.Errorf("crm export: %+v", x)
	}
}

const base = "api {\n  sandbox = true\n}\n"

func TestVariablePrecedence(t *testing.T) {
	fs := memFS(map[string]string{
		"main.leads.hcl": base + `
variable "kw" {
  default = "default"
}
variable "n" {
  type    = number
  default = 1
}
variable "cities" {
  type    = list(string)
  default = []
}
search "s" {
  keywords = var.kw
}`,
		"a.auto.leadvars.hcl": `kw = "auto"`,
		"prod.leadvars.hcl":   `kw = "file"` + "\n" + `n = 3`,
	})
	env := []string{"LEADSYNC_VAR_kw=env", "LEADSYNC_VAR_n=2", "PATH=/bin", `LEADSYNC_VAR_cities=["A", "B"]`}
	tests := []struct {
		name  string
		opts  LoadOptions
		kw    string
		n     string
		other string
	}{
		{"default", LoadOptions{}, "default", "1", "[]"},
		{"env", LoadOptions{Environ: env}, "auto", "2", `["A","B"]`},
		{"var-file", LoadOptions{Environ: env, VarFiles: []string{"prod.leadvars.hcl"}}, "file", "3", `["A","B"]`},
		{"var", LoadOptions{Environ: env, VarFiles: []string{"prod.leadvars.hcl"}, Vars: []string{"kw=one", "kw=cli", "cities=[\"C\"]"}}, "cli", "3", `["C"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.FS, tt.opts.Dir = fs, "/cfg"
			if tt.name == "default" {
				tt.opts.FS = memFS(map[string]string{"main.leads.hcl": string(fs["main.leads.hcl"].Data)})
			}
			cfg := mustLoad(t, tt.opts)
			if got := cfg.Variables["kw"].Value.AsString(); got != tt.kw {
				t.Errorf("kw = %q, want %q", got, tt.kw)
			}
			if got := cfg.Variables["n"].Value.AsBigFloat().String(); got != tt.n {
				t.Errorf("n = %s, want %s", got, tt.n)
			}
			if got := cfg.Searches[0].Request.Params["keywords"]; got != tt.kw {
				t.Errorf("keywords = %v", got)
			}
			var cities []string
			for _, v := range cfg.Variables["cities"].Value.AsValueSlice() {
				cities = append(cities, fmt.Sprintf("%q", v.AsString()))
			}
			if got := "[" + strings.Join(cities, ",") + "]"; got != tt.other {
				t.Errorf("cities = %s, want %s", got, tt.other)
			}
		})
	}
}

func TestVariableErrors(t *testing.T) {
	fs := memFS(map[string]string{"main.leads.hcl": base + `
variable "n" {
  type = number
}
variable "cities" {
  type = list(string)
  default = []
}
search "s" {
  keywords = "x"
}`})
	tests := []struct {
		name string
		opts LoadOptions
		want []string
	}{
		{"missing", LoadOptions{}, []string{"No value for required variable", "--var n=VALUE", "LEADSYNC_VAR_n"}},
		{"not a number", LoadOptions{Vars: []string{"n=abc"}}, []string{"Invalid value for variable", "var.n from --var is not a valid number"}},
		{"no equals", LoadOptions{Vars: []string{"n=1", "novalue"}}, []string{"--var takes name=value"}},
		{"undeclared", LoadOptions{Vars: []string{"n=1", "m=2"}}, []string{"Value for undeclared variable", `Did you mean "n"?`}},
		{"undeclared, nothing near", LoadOptions{Vars: []string{"n=1", "zzz=eu"}}, []string{`--var sets "zzz"`, "Declared variables: n, cities.", `Declare it with a variable "zzz" { } block, or remove the value.`}},
		{"bad list", LoadOptions{Vars: []string{"n=1", "cities=Berlin"}}, []string{"must be written as an HCL expression of type list(string)", `Berlin is read as a name, not text; put text in quotes inside the expression, like '["Berlin"]'.`}},
		{"bad list syntax", LoadOptions{Vars: []string{"n=1", "cities=[1,"}}, []string{"must be written as an HCL expression of type list(string)", "Missing expression"}},
		{"missing var file", LoadOptions{Vars: []string{"n=1"}, VarFiles: []string{"nope.hcl"}}, []string{"Cannot read --var-file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.FS, tt.opts.Dir = fs, "/cfg"
			_, diags := Load(tt.opts)
			if len(diags.Errs()) != 1 {
				t.Fatalf("want one error, got %v", diags)
			}
			text := diags.Errs()[0].Error()
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("error %q lacks %q", text, w)
				}
			}
		})
	}
}

// TestSensitiveValuesNeverShown gives a secret through every channel and
// checks that no diagnostic text, no masked snippet source and no hash
// input shows it.
func TestSensitiveValuesNeverShown(t *testing.T) {
	const secret = "s3cr3t-KEY-value"
	src := base + `
variable "key" {
  type      = string
  sensitive = true
}
variable "filters" {
  type      = list(string)
  sensitive = true
  default   = ["` + secret + `"]
}
variable "plain" {
  type      = number
  sensitive = true
}
search "s" {
  keywords       = var.key
  country_filter = var.filters
  max_results    = var.plain
}
enrich "e" {
  from  = [search.s]
  where = lead.company == var.key
}`
	for _, opts := range []LoadOptions{
		{Environ: []string{"LEADSYNC_VAR_key=" + secret}, Vars: []string{"plain=" + secret}},
		{Vars: []string{"key=" + secret, "plain=" + secret}},
		{VarFiles: []string{"s.leadvars.hcl"}},
	} {
		opts.Dir = "/cfg"
		opts.FS = memFS(map[string]string{"main.leads.hcl": src,
			"s.leadvars.hcl": `key = "` + secret + `"` + "\nplain = \"" + secret + `"`})
		cfg, diags := Load(opts)
		if !diags.HasErrors() {
			t.Fatal("want errors (a secret is not a country, nor a number)")
		}
		for _, d := range cfg.ScrubDiagnostics(diags) {
			if strings.Contains(d.Error(), secret) {
				t.Errorf("diagnostic shows the secret: %s", d.Error())
			}
		}
		for _, d := range diags {
			if strings.Contains(d.Summary+d.Detail, secret) {
				t.Errorf("diagnostic shows the secret even before scrubbing: %s", d.Error())
			}
		}
		for name, f := range cfg.DiagFiles() {
			if strings.Contains(string(f.Bytes), secret) {
				t.Errorf("%s still shows the secret after masking", name)
			}
		}
		if got := cfg.Scrub("key is " + secret); strings.Contains(got, secret) {
			t.Errorf("Scrub left the secret: %q", got)
		}
	}
}

func TestHash(t *testing.T) {
	load := func(src string, vars ...string) string {
		cfg, diags := Load(LoadOptions{Dir: "/cfg", Vars: vars, FS: memFS(map[string]string{"main.leads.hcl": src})})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return cfg.Hash
	}
	src := base + `
variable "key" {
  sensitive = true
  default = "a"
}
search "s" {
  keywords = "x"
}`
	h := load(src)
	if h != load(src) {
		t.Error("hash is not deterministic")
	}
	if h == load(src+"\n") {
		t.Error("hash ignores the file contents")
	}
	if h == load(src, "key=b") {
		t.Error("hash ignores sensitive variable values")
	}
}

func TestMatch(t *testing.T) {
	cfg := mustLoad(t, LoadOptions{Dir: "/cfg", Vars: []string{"skip=Acme"}, FS: memFS(map[string]string{"main.leads.hcl": base + `
variable "skip" {
  type = string
}
locals {
  titles = ["CTO", "VP Engineering"]
}
search "s" {
  keywords = "x"
}
enrich "some" {
  from  = [search.s]
  where = lead.company != var.skip && contains(local.titles, lead.title) && !startswith(lead.fullName, "Test")
}
enrich "all" {
  from = [search.s]
}
enrich "dynamic" {
  from  = [search.s]
  where = jsondecode(lead.location)
}`})})
	some, all, dyn := cfg.Enriches[0], cfg.Enriches[1], cfg.Enriches[2]
	tests := []struct {
		e    *Enrich
		lead person.Lead
		want bool
		err  string
	}{
		{some, person.Lead{Company: "Other", Title: "CTO", FullName: "Ada"}, true, ""},
		{some, person.Lead{Company: "Acme", Title: "CTO", FullName: "Ada"}, false, ""},
		{some, person.Lead{Company: "Other", Title: "Intern", FullName: "Ada"}, false, ""},
		{some, person.Lead{Company: "Other", Title: "CTO", FullName: "Test User"}, false, ""},
		{all, person.Lead{}, true, ""},
		{dyn, person.Lead{Location: "true"}, true, ""},
		{dyn, person.Lead{Location: `"yes"`}, false, "gave a string"},
		{dyn, person.Lead{Location: "{"}, false, "main.leads.hcl:23"},
	}
	for i, tt := range tests {
		got, err := cfg.Match(tt.e, tt.lead)
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%d: Match = %v, %v; want %v, %q", i, got, err, tt.want, tt.err)
		}
	}
	// Concurrent use: run with -race to check.
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				lead := person.Lead{Company: fmt.Sprint("c", i), Title: "CTO"}
				if ok, err := cfg.Match(some, lead); !ok || err != nil {
					t.Errorf("concurrent Match = %v, %v", ok, err)
					return
				}
			}
		}(i)
	}
	wg.Wait()
}

func TestFunctions(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "kw.txt"), []byte("CTO\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(base+`
locals {
  checks = {
    file      = chomp(file("kw.txt")) == "CTO"
    exists    = fileexists("kw.txt") && !fileexists("nope.txt")
    replace   = replace("a-b-c", "/-+/", "_") == "a_b_c" && replace("a.b", ".", "") == "ab"
    length    = length("héllo") == 5 && length(["a", "b"]) == 2 && length({ a = 1 }) == 1
    index     = index(["a", "b"], "b") == 1
    one       = one(["x"]) == "x" && one([]) == null
    sum       = sum([1, 2, 3]) == 6
    bools     = alltrue([true, true]) && anytrue([false, true]) && !alltrue([true, false])
    encode    = base64decode(base64encode("hi")) == "hi" && urlencode("a b") == "a+b"
    json      = jsondecode(jsonencode({ a = [1] })).a[0] == 1
    hashes    = sha256("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" && md5("") == "d41d8cd98f00b204e9800998ecf8427e"
    strings   = startswith("abc", "a") && endswith("abc", "c") && strcontains("abc", "b") && title("x y") == "X Y"
    regex     = regex("[0-9]+", "ab12") == "12" && length(regexall("b", "abcb")) == 2
    try       = try(tonumber("x"), 7) == 7 && !can(tonumber("x"))
    coll      = join(",", sort(distinct(concat(["b"], ["a", "b"])))) == "a,b" && contains(keys({ k = 1 }), "k")
    format    = format("%s-%d", "a", 1) == "a-1" && formatdate("YYYY", "2024-01-02T00:00:00Z") == "2024"
    toset     = length(toset(["a", "a"])) == 1 && tostring(1) == "1"
  }
  failed = [for k, v in local.checks : k if !v]
}
search "s" {
  keywords = "x"
}`), 0o644)
	cfg := mustLoad(t, LoadOptions{Dir: dir})
	failed := cfg.evalCtx.Variables["local"].GetAttr("failed")
	if failed.LengthInt() != 0 {
		t.Errorf("functions that misbehave: %#v", failed)
	}
	if n := len(cfg.evalCtx.Functions); n < 60 {
		t.Errorf("only %d functions", n)
	}
}

func TestFileFuncStaysInside(t *testing.T) {
	_, diags := Load(LoadOptions{Dir: "/cfg", FS: memFS(map[string]string{"main.leads.hcl": base + `
search "s" {
  keywords = file("../../etc/passwd")
}`})})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "outside the configuration directory") {
		t.Errorf("diags = %v", diags)
	}
}

func TestLiveCatalog(t *testing.T) {
	cat := catalog.Default()
	cat.Source = ".leadsync/fields.json"
	cat.Fields = append(cat.Fields, api.Field{FieldName: "Zip", SearchParameter: "zipCode", Type: api.FieldText},
		api.Field{FieldName: "Size", SearchParameter: "companySizeFilter", Type: api.FieldArray, PossibleValues: []string{"1-10", "11-50"}})
	fs := memFS(map[string]string{"main.leads.hcl": base + `
search "s" {
  keywords            = "x"
  zip_code            = "10115"
  company_size_filter = ["11-50"]
}`})
	cfg := mustLoad(t, LoadOptions{Dir: "/cfg", FS: fs, Catalog: cat})
	want := map[string]any{"keywords": "x", "zipCode": "10115", "companySizeFilter": []string{"11-50"}}
	if diff := cmp.Diff(want, cfg.Searches[0].Request.Params); diff != "" {
		t.Error(diff)
	}
	// The built-in catalog does not know these attributes.
	_, diags := Load(LoadOptions{Dir: "/cfg", FS: fs})
	if len(diags.Errs()) != 2 || !strings.Contains(diags.Error(), "Unsupported argument") {
		t.Errorf("diags = %v", diags)
	}
}

func TestCountInstances(t *testing.T) {
	cfg := mustLoad(t, LoadOptions{Dir: "/cfg", FS: memFS(map[string]string{"main.leads.hcl": base + `
search "s" {
  count    = 12
  keywords = "page ${count.index}"
}
enrich "e" {
  from = [search.s[10], search.s[2]]
}`})})
	if len(cfg.Searches) != 12 || cfg.Searches[2].Address != "search.s[2]" || cfg.Searches[11].Address != "search.s[11]" {
		t.Errorf("order: %s, %s", cfg.Searches[2].Address, cfg.Searches[11].Address)
	}
	if cfg.Searches[10].Request.Params["keywords"] != "page 10" {
		t.Errorf("count.index: %v", cfg.Searches[10].Request.Params)
	}
	if !cmp.Equal(cfg.Enriches[0].From, []string{"search.s[10]", "search.s[2]"}) {
		t.Errorf("from = %v", cfg.Enriches[0].From)
	}
}

func TestNoFilesStillGivesConfig(t *testing.T) {
	cfg, diags := Load(LoadOptions{Dir: t.TempDir()})
	if cfg == nil || cfg.Files == nil || !diags.HasErrors() {
		t.Fatalf("cfg %v, diags %v", cfg, diags)
	}
}

func apiLead() person.Lead {
	return person.Lead{FirstName: "Ada", LastName: "Lovelace", FullName: "Ada Lovelace", Company: "Acme", Title: "CTO"}
}

func TestHugeFunctionResultsAreErrors(t *testing.T) {
	for _, expr := range []string{"length(range(1e9))", `length(setproduct(range(1000), range(1000)))`} {
		_, diags := Load(LoadOptions{Dir: "/cfg", FS: memFS(map[string]string{"main.leads.hcl": base + `
locals {
  n = ` + expr + `
}
search "s" {
  keywords = "x"
}`})})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "more than 100000 elements") {
			t.Errorf("%s: diags = %v", expr, diags)
		}
	}
	// Small ones still work.
	mustLoad(t, LoadOptions{Dir: "/cfg", FS: memFS(map[string]string{"main.leads.hcl": base + `
search "s" {
  keywords = "x ${length(range(1, 10, 2))} ${length(setproduct(["a"], ["b", "c"]))}"
}`})})
}

// BenchmarkLoadTeam measures loading the team example (7 searches, 3
// profiles, variables, locals, two exports) from disk.
func BenchmarkLoadTeam(b *testing.B) {
	for b.Loop() {
		if _, diags := Load(LoadOptions{Dir: "../../examples/team"}); diags.HasErrors() {
			b.Fatal(diags)
		}
	}
}

// BenchmarkMatch measures one where evaluation, which apply runs per lead:
// evaluated, and remembered for a lead of the same values (whereMemo).
func BenchmarkMatch(b *testing.B) {
	cfg, _ := Load(LoadOptions{Dir: "../../examples/team"})
	e, lead := cfg.Enriches[0], apiLead()
	b.Run("evaluated", func(b *testing.B) {
		for b.Loop() {
			cfg.match(e, lead)
		}
	})
	b.Run("remembered", func(b *testing.B) {
		for b.Loop() {
			cfg.Match(e, lead)
		}
	})
}

func TestSheetLabelsAndOnlyNew(t *testing.T) {
	cfg := mustLoad(t, LoadOptions{Dir: ".", FS: memFS(map[string]string{"main.leads.hcl": `
api { sandbox = true }
search "cto" { keywords = "CTO" }
export "m" {
  path = "out/m.xlsx"
  sheet "All" {
    from   = [search.cto]
    labels = { email = "Work e-mail", "validationStatus" = "Status" }
  }
  sheet "New" {
    from     = [search.cto]
    columns  = ["fullName", "email"]
    only_new = true
  }
}
`})})
	all, fresh := cfg.Exports[0].Sheets[0], cfg.Exports[0].Sheets[1]
	if all.OnlyNew || !fresh.OnlyNew {
		t.Errorf("only_new: All %v, New %v", all.OnlyNew, fresh.OnlyNew)
	}
	if diff := cmp.Diff(map[string]string{"email": "Work e-mail", "validationStatus": "Status"}, all.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Full name", "E-mail"}, fresh.Header()); diff != "" {
		t.Errorf("New header (-want +got):\n%s", diff)
	}
	if got := all.Header(); got[9] != "Work e-mail" || got[10] != "Status" || got[11] != "Company domain" {
		t.Errorf("All header = %q", got)
	}
	// Every column has a default label, and no two share one.
	seen := map[string]string{}
	for _, c := range append(append([]string{}, DefaultColumns...), ExtraColumns...) {
		l := ColumnLabels[c]
		if l == "" {
			t.Errorf("column %s has no default label", c)
		}
		if prev, dup := seen[l]; dup {
			t.Errorf("columns %s and %s share the label %q", prev, c, l)
		}
		seen[l] = c
	}
}

// TestSymlinksDoNotLeadOutside: a link inside the configuration folder that
// points outside it is outside, for file() and for export paths; the
// configuration file itself may be a link.
func TestSymlinksDoNotLeadOutside(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "shared.hcl"), []byte(base+`
search "s" {
  keywords = "x"
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	load := func(t *testing.T, src string, links map[string]string) hcl.Diagnostics {
		t.Helper()
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		for name, target := range links {
			if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
				testenv.Skipf(t, "no symbolic links here: %v", err)
			}
		}
		_, diags := Load(LoadOptions{Dir: dir})
		return diags
	}
	t.Run("file through a link", func(t *testing.T) {
		diags := load(t, base+`
search "s" {
  keywords = file("away/secret.txt")
}
`, map[string]string{"away": outside})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "a link to a file outside it is outside too") {
			t.Errorf("diags = %v", diags)
		}
		if strings.Contains(diags.Error(), "s3cret") {
			t.Errorf("the file outside was read: %v", diags)
		}
	})
	t.Run("export into a linked folder", func(t *testing.T) {
		src := base + `
search "s" {
  keywords = "x"
}
export "x" {
  path = "out/sub/leads.csv"
  sheet "all" {
    from = [search.s]
  }
}
`
		diags := load(t, src, map[string]string{"out": outside})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), "outside the configuration folder") {
			t.Errorf("diags = %v", diags)
		}
		if diags := load(t, strings.Replace(src, `path = "out/sub/leads.csv"`, "path = \"out/sub/leads.csv\"\n  allow_outside = true", 1), map[string]string{"out": outside}); diags.HasErrors() {
			t.Errorf("allow_outside: %v", diags)
		}
		if diags := load(t, src, map[string]string{"out": "."}); diags.HasErrors() {
			t.Errorf("a link that stays inside: %v", diags)
		}
	})
	t.Run("linked configuration file", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Symlink(filepath.Join(outside, "shared.hcl"), filepath.Join(dir, "main.leads.hcl")); err != nil {
			testenv.Skipf(t, "no symbolic links here: %v", err)
		}
		if _, diags := Load(LoadOptions{Dir: dir}); diags.HasErrors() {
			t.Errorf("diags = %v", diags)
		}
	})
}

// TestTimeoutBelowSearchLatency: a timeout shorter than the 30 s a search
// can take is a warning at the timeout, when the configuration has
// searches; 30 s and above, or no search: no warning.
func TestTimeoutBelowSearchLatency(t *testing.T) {
	search := "search \"s\" {\n  keywords = \"CTO\"\n}\n"
	tests := []struct {
		timeout string
		blocks  string
		warn    bool
	}{
		{`"1s"`, search, true},
		{`"29s"`, search, true},
		{`"30s"`, search, false},
		{`"2m"`, search, false},
		{`"1s"`, "profile \"p\" {\n  page_name = \"Max_Mustermann\"\n}\n", false},
		{`"1s"`, "search \"s\" {\n  count    = 0\n  keywords = \"CTO\"\n}\n", false},
	}
	for _, tt := range tests {
		body := "api {\n  sandbox = true\n  timeout = " + tt.timeout + "\n}\n" + tt.blocks
		_, diags := Load(LoadOptions{Dir: "/cfg", FS: memFS(map[string]string{"main.leads.hcl": body})})
		if diags.HasErrors() || len(diags) > 1 {
			t.Fatalf("timeout = %s: %v", tt.timeout, diags)
		}
		if got := len(diags) == 1; got != tt.warn {
			t.Errorf("timeout = %s with %q: warning %v, want %v (%v)", tt.timeout, tt.blocks, got, tt.warn, diags)
			continue
		}
		if tt.warn {
			d := diags[0]
			if d.Summary != "Timeout shorter than a search can take" || d.Subject == nil || d.Subject.Start.Line != 3 {
				t.Errorf("timeout = %s: %s at %v; want the warning on line 3", tt.timeout, d.Summary, d.Subject)
			}
			if !strings.Contains(d.Detail, "timeout = "+tt.timeout) {
				t.Errorf("timeout = %s: detail %q does not name it", tt.timeout, d.Detail)
			}
		}
	}
}

// A block repeated over nothing has no instances, as in Terraform: an
// empty literal set (toset([]), whose elements have no type), an empty map
// or object, count = 0, or an empty set from a variable. The blocks that
// read it (enrich, export) read nobody; nothing is an error. A set that
// holds values of another type than string still is.
func TestEmptyRepetitions(t *testing.T) {
	for _, tc := range []struct {
		name, repeat string
		err          string // "" when valid
	}{
		{"empty literal set", `for_each = toset([])`, ""},
		{"empty map", `for_each = {}`, ""},
		{"empty tomap", `for_each = tomap({})`, ""},
		{"empty set of strings", `for_each = toset(tolist([]))`, ""},
		{"empty variable", `for_each = var.none`, ""},
		{"count zero", `count = 0`, ""},
		{"empty list", `for_each = []`, "Convert it with toset(...)"},
		{"set of null", `for_each = toset([null])`, "this is a set of values of any type"},
		{"set of numbers", `for_each = toset([1])`, "this is a set of numbers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := base + `
variable "none" {
  type    = set(string)
  default = []
}
search "s" {
  ` + tc.repeat + `
  keywords = "CTO"
}
profile "p" {
  ` + tc.repeat + `
  page_name = "Ada_Lovelace"
}
enrich "e" {
  from = [search.s, profile.p]
}
export "x" {
  path = "out.csv"
  sheet "people" {
    from = [search.s, profile.p]
  }
}
`
			cfg, diags := Load(LoadOptions{Dir: "/cfg", FS: memFS(map[string]string{"main.leads.hcl": src})})
			if tc.err != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), tc.err) {
					t.Fatalf("want an error with %q, got %v", tc.err, diags)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatalf("unexpected errors: %v", diags)
			}
			if len(cfg.Searches) != 0 || len(cfg.Profiles) != 0 {
				t.Errorf("instances: %d searches, %d profiles; want none", len(cfg.Searches), len(cfg.Profiles))
			}
			if got := cfg.Resolve(cfg.Enriches[0].From); len(got) != 0 {
				t.Errorf("enrich reads %v; want nobody", got)
			}
			for text, k := range map[string]kind.Kind{"search.s": kind.Search, "profile.p": kind.Profile} {
				if a, ok := cfg.Addr(text); !ok || a.Kind != k || a.String() != text {
					t.Errorf("Addr(%s) = %v, %v: a block without instances is still declared", text, a, ok)
				}
			}
		})
	}
}
