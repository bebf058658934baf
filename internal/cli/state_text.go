package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/leadsync/leadsync/internal/textfmt"
)

// stateWhen renders a time with its age: "2026-05-01 12:00 UTC (3 days ago)".
func stateWhen(t, now time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04 MST") + " (" + stateAge(now.Sub(t)) + ")"
}

// stateAge says how long ago something was, in words.
func stateAge(d time.Duration) string {
	switch {
	case d < 0:
		return "in the future"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return textfmt.Plural(int(d/time.Minute), "minute") + " ago"
	case d < 48*time.Hour:
		return textfmt.Plural(int(d/time.Hour), "hour") + " ago"
	}
	return textfmt.Plural(int(d/(24*time.Hour)), "day") + " ago"
}

func compactJSON(b []byte) string {
	if len(b) == 0 {
		return "null"
	}
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return string(b)
	}
	return buf.String()
}

// stateWriter collects the first write error, so that long listings do not
// check every line.
// Output is buffered: a state lists hundreds of thousands of people.
type stateWriter struct {
	w   *bufio.Writer
	err error
}

func newStateWriter(w io.Writer) *stateWriter { return &stateWriter{w: bufio.NewWriter(w)} }

func (w *stateWriter) printf(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format, args...)
	}
}

// kv prints an aligned "key value" line without trailing space.
func (w *stateWriter) kv(indent, key, value string) {
	w.printf("%s\n", trimRight(fmt.Sprintf("%s%-16s %s", indent, key, value)))
}

func (w *stateWriter) flush() error {
	if err := w.w.Flush(); w.err == nil {
		w.err = err
	}
	return w.err
}
