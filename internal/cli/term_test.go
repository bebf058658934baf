package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// TestIsTerminalNotDevNull: /dev/null is a character device but not a
// terminal, so a run with </dev/null neither prompts nor draws a status line.
func TestIsTerminalNotDevNull(t *testing.T) {
	for _, path := range []string{os.DevNull, filepath.Join(t.TempDir(), "file")} {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		if isTerminal(f) {
			t.Errorf("isTerminal(%s) = true, want false", path)
		}
		f.Close()
	}
}
