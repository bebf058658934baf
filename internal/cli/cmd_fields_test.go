package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/views"
)

// apiTestKey is distinctive so that a leak is easy to spot.
const apiTestKey = "lk-test-D0NT-LEAK-9931"

var apiTestNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// apiRun runs leadsync in dir with the environment env (KEY=VALUE).
func apiRun(t *testing.T, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return apiRunOn(t, nil, dir, env, args...)
}

// apiRunOn is apiRun with the service's client on clock (nil: the
// system's), so that its pacing and retries take no real time; the key of
// LEADSYNC_API_KEY in env must not leak either.
func apiRunOn(t *testing.T, clock api.Clock, dir string, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ios, _, out, errOut := TestStreams()
	f := &Factory{
		IO: ios,
		Getenv: func(k string) string {
			for _, kv := range env {
				if name, v, _ := strings.Cut(kv, "="); name == k {
					return v
				}
			}
			return ""
		},
		Environ:  func() []string { return env },
		Now:      func() time.Time { return apiTestNow },
		Dir:      dir,
		APIClock: clock,
	}
	code = Run(context.Background(), f, args)
	if strings.Contains(out.String()+errOut.String(), apiTestKey) {
		t.Fatalf("the API key leaked into the output:\n%s%s", out, errOut)
	}
	if key := f.Getenv("LEADSYNC_API_KEY"); key != "" && strings.Contains(out.String()+errOut.String(), key) {
		t.Fatalf("the API key leaked into the output:\n%s%s", out, errOut)
	}
	return code, out.String(), errOut.String()
}

// apiGolden compares got with testdata/<name>, or rewrites it with -update.
func apiGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.Check(t, filepath.Join("testdata", name), []byte(got))
}

// writeConfig writes main.leads.hcl into a new directory and returns it.
func writeConfig(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const sandboxConfig = "api {\n  sandbox = true\n}\n"

// fakeService serves the first generation's fields and billing with the
// key check of the real service; it counts the calls.
func fakeService(t *testing.T, fields []api.Field, key string) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if got := r.Header.Get("X-Api-Key"); got != key {
			w.WriteHeader(403)
			fmt.Fprintf(w, `{"message":"invalid API key %s"}`, got) // echoes the key: must be redacted
			return
		}
		switch r.URL.Path {
		case "/v1/scrap/fields":
			_ = json.NewEncoder(w).Encode(fields)
		case "/v1/billing":
			fmt.Fprint(w, `{"Remaining requests this month": 1234567, "Invoicing start date": "2025-02-01"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func remoteConfig(url string) string {
	return fmt.Sprintf("api {\n  base_url = %q\n}\n", url)
}

func TestFieldsBuiltin(t *testing.T) {
	code, out, errOut := apiRun(t, t.TempDir(), nil, "fields")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	apiGolden(t, "fields/builtin.txt", out)

	code, out, _ = apiRun(t, t.TempDir(), nil, "fields", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var got views.FieldsJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.FormatVersion != "1" || got.Source != "built-in" || got.FetchedAt != nil || len(got.Fields) != 15 {
		t.Fatalf("json: %+v", got)
	}
	if strings.Contains(out, "null") {
		t.Errorf("JSON has null:\n%s", out)
	}
	if f := got.Fields[14]; f.Attribute != "country_filter" || f.SearchParameter != "countryFilter" || len(f.PossibleValues) != 10 {
		t.Errorf("last field %+v", f)
	}
}

func TestFieldsRefreshSandbox(t *testing.T) {
	dir := writeConfig(t, sandboxConfig)
	code, out, errOut := apiRun(t, dir, nil, "fields", "--refresh")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "Fetched 15 fields from the service (the built-in sandbox) and cached them in .leadsync/fields.json") {
		t.Errorf("stderr: %s", errOut)
	}
	if !strings.Contains(out, "15 searchable fields (.leadsync/fields.json, fetched 2026-01-02 03:04 UTC)") {
		t.Errorf("stdout: %s", out)
	}
	cat, err := catalog.LoadCache(filepath.Join(dir, catalog.CachePath))
	if err != nil || cat == nil || len(cat.Fields) != 15 || !cat.FetchedAt.Equal(apiTestNow) {
		t.Fatalf("cache: %+v, %v", cat, err)
	}
	// Without --refresh: the cache, no call (no config needed for that).
	code, out2, _ := apiRun(t, dir, nil, "fields")
	if code != 0 || out2 != out {
		t.Errorf("cached listing differs:\n%s\n---\n%s", out2, out)
	}
}

func TestFieldsRefreshChanges(t *testing.T) {
	fields := catalog.Default().Fields
	fields = fields[:len(fields)-1] // countryFilter gone
	for i := range fields {
		if fields[i].SearchParameter == "levelFilter" {
			fields[i].PossibleValues = append(fields[i].PossibleValues[1:], "Founder")
		}
	}
	fields = append(fields, api.Field{FieldName: "Seniority", SearchParameter: "seniorityFilter", Type: api.FieldArray, PossibleValues: []string{"1-3 years"}})
	srv, calls := fakeService(t, fields, apiTestKey)
	dir := writeConfig(t, remoteConfig(srv.URL))
	code, _, errOut := apiRun(t, dir, []string{"LEADSYNC_API_KEY=" + apiTestKey}, "fields", "--refresh")
	if code != 0 || calls.Load() != 1 {
		t.Fatalf("exit %d, %d calls: %s", code, calls.Load(), errOut)
	}
	apiGolden(t, "fields/refresh-changes.txt", errOut)
}

func TestFieldsErrors(t *testing.T) {
	srv, _ := fakeService(t, catalog.Default().Fields, "the-right-key")
	tests := []struct {
		name   string
		config string // "" : no configuration
		env    []string
		cache  string
		args   []string
		want   []string
	}{
		{name: "corrupt cache", cache: "{not json", args: []string{"fields"},
			want: []string{"Error: the field catalog cache", "is corrupt", "delete it or run `leadsync fields --refresh`"}},
		{name: "refresh without configuration", args: []string{"fields", "--refresh"},
			want: []string{"No configuration files"}},
		{name: "refresh without key", config: remoteConfig(srv.URL), args: []string{"fields", "--refresh"},
			want: []string{"Error: no API key: set LEADSYNC_API_KEY or api.api_key (or api { sandbox = true })"}},
		{name: "refresh with a wrong key", config: remoteConfig(srv.URL), env: []string{"LEADSYNC_API_KEY=" + apiTestKey}, args: []string{"fields", "--refresh"},
			want: []string{"Error: reading the field list: fields: forbidden (HTTP 403): invalid API key [redacted]", "Check the API key (LEADSYNC_API_KEY or api.api_key)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.config != "" {
				dir = writeConfig(t, tt.config)
			}
			if tt.cache != "" {
				os.MkdirAll(filepath.Join(dir, ".leadsync"), 0o755)
				os.WriteFile(filepath.Join(dir, catalog.CachePath), []byte(tt.cache), 0o600)
			}
			code, out, errOut := apiRun(t, dir, tt.env, tt.args...)
			if code != ExitError || out != "" {
				t.Errorf("exit %d, stdout %q", code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, catalog.CachePath)); tt.cache == "" && err == nil {
				t.Error("a cache was written")
			}
		})
	}
}

// TestFieldsRefreshDespiteStaleCatalog: a configuration that is invalid only
// because the cached catalog lacks a value can still refresh the catalog.
func TestFieldsRefreshDespiteStaleCatalog(t *testing.T) {
	fields := catalog.Default().Fields
	for i := range fields {
		if fields[i].SearchParameter == "countryFilter" {
			fields[i].PossibleValues = append(fields[i].PossibleValues, "France")
		}
	}
	srv, _ := fakeService(t, fields, apiTestKey+"-stale")
	dir := writeConfig(t, remoteConfig(srv.URL)+`
search "fr" {
  keywords       = "CTO"
  country_filter = ["France"]
}
`)
	env := []string{"LEADSYNC_API_KEY=" + apiTestKey + "-stale"}
	if code, _, errOut := apiRun(t, dir, env, "validate"); code != ExitError {
		t.Fatalf("validate with the built-in catalog: exit %d\n%s", code, errOut)
	}
	code, _, errOut := apiRun(t, dir, env, "fields", "--refresh")
	if code != 0 || !strings.Contains(errOut, "refreshed anyway") || !strings.Contains(errOut, `+ country_filter value "France"`) {
		t.Fatalf("refresh: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := apiRun(t, dir, env, "validate"); code != 0 {
		t.Fatalf("validate with the refreshed catalog: exit %d\n%s", code, errOut)
	}
}

func TestDebugLog(t *testing.T) {
	srv, _ := fakeService(t, catalog.Default().Fields, apiTestKey+"-debug")
	dir := writeConfig(t, remoteConfig(srv.URL))
	code, _, errOut := apiRun(t, dir, []string{"LEADSYNC_API_KEY=" + apiTestKey + "-debug", "LEADSYNC_LOG=debug"}, "usage")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"api_key=[redacted]", `msg="api call" op=billing gen=1 method=GET path=/v1/billing attempt=1 status=200`} {
		if !strings.Contains(errOut, w) {
			t.Errorf("debug log lacks %q:\n%s", w, errOut)
		}
	}
	var buf bytes.Buffer
	buf.WriteString(errOut)
	if strings.Contains(buf.String(), apiTestKey) {
		t.Error("key in the debug log")
	}
}

// TestFieldsCachePathAgrees: the help of --refresh names the cache that
// the catalog writes (arguments imports no catalog: it reads no files).
func TestFieldsCachePathAgrees(t *testing.T) {
	if arguments.FieldsCachePath != catalog.CachePath {
		t.Errorf("arguments.FieldsCachePath %q, catalog.CachePath %q", arguments.FieldsCachePath, catalog.CachePath)
	}
}
