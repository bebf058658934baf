//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd

package cli

import "os"

// isTerminal reports whether f is a character device (the best test
// without termios).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	return fi.Mode()&os.ModeCharDevice != 0
}
