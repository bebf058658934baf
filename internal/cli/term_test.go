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
		if w := terminalWidth(f); w != 0 {
			t.Errorf("terminalWidth(%s) = %d, want 0", path, w)
		}
		f.Close()
	}
}

// TestTextWidth: text wraps at the default width unless Out is a
// narrower terminal; a very narrow one still gets usable lines.
func TestTextWidth(t *testing.T) {
	for _, c := range []struct{ outWidth, def, want int }{
		{0, 76, 76},   // not a terminal
		{200, 76, 76}, // a wide terminal: lines stay readable
		{80, 76, 76},
		{60, 76, 56},
		{10, 76, 20},
	} {
		s := &IOStreams{OutWidth: c.outWidth}
		if got := s.TextWidth(c.def); got != c.want {
			t.Errorf("OutWidth %d: TextWidth(%d) = %d, want %d", c.outWidth, c.def, got, c.want)
		}
	}
}
