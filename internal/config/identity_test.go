package config

import (
	"os"
	"path/filepath"
	"testing"
)

// The configuration's identity is leadsync { name }, else its git
// origin and its folder's path in the repository, alike for every way of
// cloning; "" outside a clone.
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
	for _, url := range []string{"git@github.com:acme/leads.git", "https://github.com/acme/leads", "ssh://git@github.com/acme/leads.git", "https://ana@github.com/acme/leads.git/"} {
		root := t.TempDir()
		dir := filepath.Join(root, "markets", "dach")
		if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cfg := "[core]\n\tbare = false\n[remote \"upstream\"]\n\turl = https://example.com/other\n[remote \"origin\"]\n\turl = " + url + "\n"
		if err := os.WriteFile(filepath.Join(root, ".git", "config"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		c := &Config{Dir: dir}
		if got := c.Identity(); got != "github.com/acme/leads/markets/dach" {
			t.Errorf("%s: %q", url, got)
		}
	}
	if got := (&Config{Dir: t.TempDir()}).Identity(); got != "" {
		t.Errorf("outside a clone: %q", got)
	}
}
