package views

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Waiting says on w, while a call is retried, what it waits for: the
// billing read before a plan or an apply, and usage (apply's own calls
// say it in the live display).
func Waiting(w io.Writer, d time.Duration, reason string) {
	fmt.Fprintf(w, "Waiting %s before calling the service again (%s)...\n", d.Round(100*time.Millisecond), reason)
}

// APIError prints a failed call as one error: what was being done, the
// service's message, and (when there is one) what to do about it, as a
// sentence of its own.
func APIError(w io.Writer, doing, msg, hint string) {
	fmt.Fprintf(w, "Error: %s: %s\n", doing, msg)
	if hint != "" {
		fmt.Fprintf(w, "\n%s.\n", upperFirst(hint))
	}
}

// upperFirst returns s with its first byte upper-cased.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Error prints the failure of a command as Main reports it: "Error: " and
// the message, one line.
func Error(w io.Writer, err error) {
	fmt.Fprintf(w, "Error: %s\n", err)
}

// Warning prints a warning that stops nothing as one line.
func Warning(w io.Writer, msg string) {
	fmt.Fprintln(w, "Warning: "+msg)
}

// Confirm asks question as Terraform does: only "yes" approves. The
// answer is read by the caller.
func Confirm(w io.Writer, question string) {
	fmt.Fprint(w, "\n"+question+"\n  Only 'yes' will be accepted to approve.\n\n  Enter a value: ")
}

// Note prints a one-line note of a backend (the lock of a run that died
// was taken over, a state migrated) as "Note: ...".
func Note(w io.Writer, note string) {
	fmt.Fprintln(w, "Note: "+note+".")
}

// StateLocationBroken says, after the configuration's errors, that the
// state could not be found because of them; withStateFlag adds that
// --state names a state file without the configuration.
func StateLocationBroken(w io.Writer, withStateFlag bool) {
	if withStateFlag {
		fmt.Fprintln(w, "The state's location comes from the configuration: fix the configuration, or name the state file with --state.")
		return
	}
	fmt.Fprintln(w, "The state's location comes from the configuration: fix the configuration.")
}
