package config

import "testing"

// The configuration's identity is leadsync { name }, else its folder's
// name, whatever the path to it.
func TestIdentity(t *testing.T) {
	named := mustLoad(t, LoadOptions{Dir: "/somewhere/leads", FS: memFS(map[string]string{"main.leads.hcl": base + `
leadsync {
  name = "dach-leads"
}
search "s" {
  keywords = "x"
}`})})
	if got := named.Identity(); got != "dach-leads" {
		t.Errorf("named: %q", got)
	}
	for _, dir := range []string{"/home/ana/src/leads", "/ci/work/leads/"} {
		cfg := mustLoad(t, LoadOptions{Dir: dir, FS: memFS(map[string]string{"main.leads.hcl": base + `
search "s" {
  keywords = "x"
}`})})
		if got := cfg.Identity(); got != "leads" {
			t.Errorf("%s: %q, want leads", dir, got)
		}
	}
}
