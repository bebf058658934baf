package cli

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/views"
)

func TestUsage(t *testing.T) {
	srv, calls := fakeService(t, catalog.Default().Fields, apiTestKey+"-usage")
	dir := writeConfig(t, remoteConfig(srv.URL))
	env := []string{"LEADSYNC_API_KEY=" + apiTestKey + "-usage"}
	code, out, errOut := apiRun(t, dir, env, "usage")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	apiGolden(t, "usage/usage.txt", out)

	code, out, _ = apiRun(t, dir, env, "usage", "--json")
	var got views.UsageJSON
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	if got != (views.UsageJSON{FormatVersion: "1", RemainingRequests: 1234567, InvoicingStartDate: "2025-02-01"}) {
		t.Errorf("json %+v", got)
	}
	if calls.Load() != 2 {
		t.Errorf("%d calls, want 2", calls.Load())
	}
}

func TestUsageSandbox(t *testing.T) {
	code, out, errOut := apiRun(t, writeConfig(t, sandboxConfig), nil, "usage")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	apiGolden(t, "usage/sandbox.txt", out)
}

func TestUsageErrors(t *testing.T) {
	srv, _ := fakeService(t, catalog.Default().Fields, "the-right-key")
	tests := []struct {
		name   string
		config string
		env    []string
		want   []string
	}{
		{"invalid configuration", "api {\n  base_url = 42\n  bogus = 1\n}\n", nil,
			[]string{"Error: ", "main.leads.hcl line"}},
		{"no key", remoteConfig(srv.URL), nil,
			[]string{"Error: no API key: set LEADSYNC_API_KEY or api.api_key (or api { sandbox = true })"}},
		{"wrong key", remoteConfig(srv.URL), []string{"LEADSYNC_API_KEY=" + apiTestKey},
			[]string{"Error: reading the usage: billing: forbidden (HTTP 403): invalid API key [redacted]\n\nCheck the API key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := apiRun(t, writeConfig(t, tt.config), tt.env, "usage")
			if code != ExitError || out != "" {
				t.Errorf("exit %d, stdout %q", code, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
		})
	}
}

// TestAgainstServedSandbox runs usage and fields --refresh against the
// sandbox served over HTTP, as `leadsync sandbox` serves it.
func TestAgainstServedSandbox(t *testing.T) {
	srv := httptest.NewServer(sandbox.New(sandbox.Options{NoLatency: true}))
	defer srv.Close()
	dir := writeConfig(t, fmt.Sprintf("api {\n  base_url    = %q\n  base_url_v2 = %q\n}\n", srv.URL, srv.URL))
	env := []string{"LEADSYNC_API_KEY=" + sandbox.DefaultKey}
	code, out, errOut := apiRun(t, dir, env, "usage")
	if code != 0 || !strings.Contains(out, "Invoicing start date:          "+sandbox.InvoicingStartDate) {
		t.Fatalf("usage: exit %d\n%s%s", code, out, errOut)
	}
	// A second call of the same key in the same process waits for the
	// rate limit (about a second) instead of getting a 429.
	code, _, errOut = apiRun(t, dir, env, "fields", "--refresh")
	if code != 0 || !strings.Contains(errOut, "Fetched 15 fields") {
		t.Fatalf("fields --refresh: exit %d\n%s", code, errOut)
	}
}
