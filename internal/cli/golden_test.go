package cli

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// update is the package's one -update flag: go test ./internal/cli -update
// rewrites the golden files under testdata/.
var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// checkGolden compares got with the golden file, or rewrites it with -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("output differs from %s (run with -update if the change is intended)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}
