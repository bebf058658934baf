package views

import (
	"fmt"
	"io"
	"time"
)

// CrashLog writes what a report of a panic needs: the version, the time,
// the panic's value and its goroutine's stack.
func CrashLog(w io.Writer, version string, at time.Time, p any, stack []byte) error {
	_, err := fmt.Fprintf(w, "leadsync %s, %s\npanic: %v\n\n%s", version, at.UTC().Format(time.RFC3339), p, stack)
	return err
}
