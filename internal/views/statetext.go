package views

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/leadsync/leadsync/internal/textfmt"
)

// When renders a time with its age: "2026-05-01 12:00 UTC (3 days ago)";
// "never" for the zero time.
func When(t, now time.Time) string {
	if t.IsZero() {
		return "never"
	}
	return t.UTC().Format("2006-01-02 15:04 MST") + " (" + Age(now.Sub(t)) + ")"
}

// Age says how long ago something was, in words: "just now", "3 hours
// ago", "9 days ago".
func Age(d time.Duration) string {
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

// compactJSON is b on one line ("null" when empty).
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

// lineWriter writes the lines of a listing through a buffer (a state lists
// hundreds of thousands of people) and keeps the first write error, so
// that a listing need not check every line.
type lineWriter struct {
	w   *bufio.Writer
	err error
}

func newLineWriter(w io.Writer) *lineWriter { return &lineWriter{w: bufio.NewWriter(w)} }

func (w *lineWriter) printf(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format, args...)
	}
}

// kv prints an aligned "key value" line without trailing space.
func (w *lineWriter) kv(indent, key, value string) {
	w.printf("%s\n", trimRight(fmt.Sprintf("%s%-16s %s", indent, key, value)))
}

// flush writes what is buffered and returns the first error.
func (w *lineWriter) flush() error {
	if err := w.w.Flush(); w.err == nil {
		w.err = err
	}
	return w.err
}

// columns prints rows indented by two spaces with aligned columns
// (display widths: addresses hold keys like "München" or "東京").
func (w *lineWriter) columns(rows [][]string) {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], textfmt.Width(c))
		}
	}
	for _, r := range rows {
		line := " "
		for i, c := range r {
			if i == len(r)-1 {
				line += " " + c
				break
			}
			line += " " + textfmt.PadRight(c, width[i]) + " "
		}
		w.printf("%s\n", trimRight(line))
	}
}

func trimRight(s string) string {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}
