package local

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A state whose records name people it does not have is damaged: loading
// it fails with the place of the bad reference and leaves the file alone.
func TestDanglingReferencesAreRefused(t *testing.T) {
	for name, body := range map[string]string{
		"search lead_ids": `{"format_version":1,"lineage":"l","serial":1,"people":{},
			"searches":{"search.a":{"address":"search.a","lead_ids":["1.a"]}}}`,
		"profile person_id": `{"format_version":1,"lineage":"l","serial":1,"people":{},
			"profiles":{"profile.p":{"address":"profile.p","person_id":"page:Max"}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := NewStore(path).Load()
			if err == nil || !strings.Contains(err.Error(), "is not in people") {
				t.Fatalf("err = %v, want a dangling-reference error", err)
			}
			if b, _ := os.ReadFile(path); string(b) != body {
				t.Error("the damaged file was changed")
			}
		})
	}
}
