package config

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
)

// unclosedQuote reduces the parse errors of src (the file name) that a
// missing closing quote causes to one. The parser reads everything after
// such a quote inside out, and reported "Invalid multi-line string" on
// every later line and "Unterminated template string" at the quote: 30
// errors for one mistake. What remains is the first of them, saying which
// quote to close and how; the errors later in the file, which the
// misreading made, are dropped. ds is returned unchanged when no string
// runs over a line.
func unclosedQuote(src []byte, ds hcl.Diagnostics) hcl.Diagnostics {
	var first *hcl.Diagnostic
	for _, d := range ds {
		if d.Summary == "Invalid multi-line string" && d.Subject != nil &&
			(first == nil || d.Subject.Start.Byte < first.Subject.Start.Byte) {
			first = d
		}
	}
	if first == nil {
		return ds
	}
	at := first.Subject.Start
	out := hcl.Diagnostics{}
	for _, d := range ds {
		if d.Subject != nil && d.Subject.Start.Byte >= at.Byte {
			continue // made by reading the rest of the file inside out
		}
		out = append(out, d)
	}
	line := sourceLine(src, at.Line)
	fix := ""
	if t := strings.TrimSpace(line); t != "" && strings.Count(t, `"`)%2 == 1 {
		fix = fmt.Sprintf(", as in %s\"", t)
	}
	// The subject is the rest of the quote's line, not the file.
	rest := src[min(at.Byte, len(src)):]
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	rest = bytes.TrimRight(rest, " \t\r")
	end := hcl.Pos{Line: at.Line, Column: at.Column + utf8.RuneCount(rest), Byte: at.Byte + len(rest)}
	// The parser's range starts at the line's end; the quote is the last
	// one before it.
	start := at
	if lineStart := at.Byte - len(line); lineStart >= 0 && lineStart <= at.Byte && at.Byte <= len(src) {
		if q := bytes.LastIndexByte(src[lineStart:at.Byte], '"'); q >= 0 {
			start = hcl.Pos{Line: at.Line, Column: 1 + utf8.RuneCount(src[lineStart:lineStart+q]), Byte: lineStart + q}
		}
	}
	subject := hcl.Range{Filename: first.Subject.Filename, Start: start, End: end}
	return append(out, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Missing closing quote",
		Detail: fmt.Sprintf("The string that starts on line %d has no closing quote on its line, so everything after it was read as part of it. Close it with \" where the value ends%s. (A string of several lines is written with \\n, or as a heredoc: <<EOT ... EOT.)",
			at.Line, fix),
		Subject: &subject,
	})
}

// sourceLine is line n (from 1) of src, without its line break.
func sourceLine(src []byte, n int) string {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return ""
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return string(src)
}
