package cli

import (
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether f is a terminal. A character device is not
// enough: /dev/null (and NUL on Windows) is one too, and a command run
// with </dev/null (cron, CI) must not prompt, colour or draw a live status
// line. golang.org/x/term asks the terminal itself (termios on Unix, the
// console mode on Windows).
func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}

// terminalWidth is the number of columns of the terminal f, or 0 when f is
// not a terminal or its size is unknown.
func terminalWidth(f *os.File) int {
	if !isTerminal(f) {
		return 0
	}
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil || w <= 0 {
		return 0
	}
	return w
}
