package views

import (
	"fmt"
	"io"
	"time"
)

// Crash says a command stopped on a panic, a bug of leadsync: what is
// safe, what to do, and where the stack was written (logPath; "" when it
// could not be).
func Crash(w io.Writer, p any, logPath string) {
	where := "the message above (the details could not be written)"
	if logPath != "" {
		where = logPath
	}
	fmt.Fprintf(w, "Error: leadsync stopped on an internal error: %v\n\n"+
		"This is a bug in leadsync, not in your configuration. Every answer paid\n"+
		"for was written to the state before the next call; run the command again\n"+
		"to go on. Please report it with the details in %s.\n", p, where)
}

// CrashLog writes what a report of a panic needs: the version, the time,
// the panic's value and its goroutine's stack.
func CrashLog(w io.Writer, version string, at time.Time, p any, stack []byte) error {
	_, err := fmt.Fprintf(w, "leadsync %s, %s\npanic: %v\n\n%s", version, at.UTC().Format(time.RFC3339), p, stack)
	return err
}
