package cli

import (
	"strings"
	"testing"
)

// TestBaseURLOverride: LEADSYNC_BASE_URL replaces the api block's
// addresses, checked as base_url is, and is refused with a sandbox in the
// process, which has no address.
func TestBaseURLOverride(t *testing.T) {
	const real = "api {\n  base_url = \"https://api.example.com\"\n}\n"
	const inProcess = "api {\n  sandbox = true\n}\n"
	tests := []struct {
		config, value string
		want          string // "" for valid
	}{
		{real, "http://127.0.0.1:8787/", ""},
		{real, "http://example.com", "Invalid LEADSYNC_BASE_URL"},
		{real, "https://api.example.com/v1", "LEADSYNC_BASE_URL=https://api.example.com/v1"},
		{inProcess, "http://127.0.0.1:8787", "sandbox = true, whose service runs in the process and has no address"},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "main.leads.hcl", tt.config)
			code, out, errOut := runEnv(t, dir, []string{EnvBaseURL + "=" + tt.value}, "validate")
			if tt.want == "" {
				if code != 0 {
					t.Errorf("exit %d:\n%s%s", code, out, errOut)
				}
				return
			}
			if code != 1 || !strings.Contains(out+errOut, tt.want) {
				t.Errorf("exit %d, want 1 and %q:\n%s%s", code, tt.want, out, errOut)
			}
		})
	}
}
