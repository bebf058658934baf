package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/config"
)

// TestConfigOfPastOneForEach loads the configuration write makes of more
// searches than one for_each may hold, flat and through modules: it must
// load without error and name exactly the addresses the state's
// searches are written at.
func TestConfigOfPastOneForEach(t *testing.T) {
	const n = 2*blockSize + 1500
	for _, modules := range []bool{false, true} {
		dir := t.TempDir()
		cfg, addr := configOf(n, 300, !modules, modules, target{})
		if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		if modules {
			if err := os.MkdirAll(filepath.Join(dir, "persona"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "persona", "main.leads.hcl"), []byte(strings.Replace(personaModule, "%d", "300", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c, diags := config.Load(config.LoadOptions{Dir: dir})
		if diags.HasErrors() {
			t.Fatalf("modules %v: %s", modules, diags.Error())
		}
		if len(c.Searches) != n {
			t.Fatalf("modules %v: %d searches, want %d", modules, len(c.Searches), n)
		}
		want := map[string]bool{}
		for i := range n {
			want[addr(i)] = true
		}
		for _, s := range c.Searches {
			if !want[s.Address] {
				t.Fatalf("modules %v: search %s is none of the state's", modules, s.Address)
			}
			delete(want, s.Address)
		}
		if len(want) != 0 {
			t.Fatalf("modules %v: %d of the state's searches are not in the configuration", modules, len(want))
		}
	}
}
