package views

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/textfmt"
)

// ansiUnderline marks a diagnostic's range in a coloured snippet.
const ansiUnderline = "\x1b[4m"

// maxSnippetLines bounds the source lines shown for one diagnostic.
const maxSnippetLines = 3

// Diagnostics renders diags to w like Terraform: severity and summary,
// the place with a source snippet (taken from files) and the range
// underlined, then the detail. color paints them (the caller decides:
// only when w is a terminal and colour is not disabled). The caller
// passes diags already scrubbed of sensitive values (config.Config's
// ScrubDiagnostics) and the files as the configuration masks them.
func Diagnostics(w io.Writer, files map[string]*hcl.File, diags hcl.Diagnostics, color bool) {
	for _, d := range diags {
		diagnostic(w, files, d, color)
	}
}

func diagnostic(w io.Writer, files map[string]*hcl.File, d *hcl.Diagnostic, color bool) {
	label, paint := "Error", ansiRed
	if d.Severity == hcl.DiagWarning {
		label, paint = "Warning", ansiYellow
	}
	if color {
		fmt.Fprintf(w, "%s%s%s: %s%s\n\n", ansiBold, paint, label, d.Summary, ansiReset)
	} else {
		fmt.Fprintf(w, "%s: %s\n\n", label, d.Summary)
	}
	if s := d.Subject; s != nil {
		file := files[s.Filename]
		fmt.Fprintf(w, "  on %s line %d", s.Filename, s.Start.Line)
		if file != nil {
			if cs, ok := file.Nav.(interface{ ContextString(int) string }); ok {
				if ctx := cs.ContextString(s.Start.Byte); ctx != "" {
					fmt.Fprintf(w, ", in %s", ctx)
				}
			}
		}
		fmt.Fprintln(w, ":")
		if file != nil {
			writeSnippet(w, file.Bytes, *s, color)
		}
		fmt.Fprintln(w)
	}
	if d.Detail != "" {
		fmt.Fprintf(w, "%s\n\n", d.Detail)
	}
}

// sourceLine is one line of a file with its byte offsets.
type sourceLine struct {
	num        int
	start, end int // end excludes the newline
}

func linesOf(src []byte, from, to int) []sourceLine {
	var out []sourceLine
	start := 0
	for num := 1; start <= len(src) && num <= to; num++ {
		end := start
		for end < len(src) && src[end] != '\n' {
			end++
		}
		if num >= from {
			e := end
			if e > start && src[e-1] == '\r' {
				e--
			}
			out = append(out, sourceLine{num, start, e})
		}
		start = end + 1
	}
	return out
}

// writeSnippet prints the subject's lines with their numbers and marks the
// range: underlined in colour, or with carets on the next line.
func writeSnippet(w io.Writer, src []byte, r hcl.Range, color bool) {
	last := r.End.Line
	if r.End.Byte == r.Start.Byte || last < r.Start.Line {
		last = r.Start.Line
	}
	if r.End.Column == 1 && last > r.Start.Line {
		last-- // a range ending at the start of a line ends on the line before
	}
	if last-r.Start.Line >= maxSnippetLines {
		last = r.Start.Line + maxSnippetLines - 1
	}
	width := len(fmt.Sprint(last))
	for _, ln := range linesOf(src, r.Start.Line, last) {
		line := src[ln.start:ln.end]
		hs, he := max(r.Start.Byte, ln.start)-ln.start, min(r.End.Byte, ln.end)-ln.start
		if ln.num > r.Start.Line { // continuation lines: from the first non-blank
			for hs < he && (line[hs] == ' ' || line[hs] == '\t') {
				hs++
			}
		}
		if hs > len(line) {
			hs = len(line)
		}
		if he < hs {
			he = hs
		}
		if !utf8.Valid(line) {
			line = []byte(strings.ToValidUTF8(string(line), "?"))
			hs, he = min(hs, len(line)), min(he, len(line))
		}
		line, hs, he = clipLine(line, hs, he)
		prefix := fmt.Sprintf("  %*d: ", width, ln.num)
		if color {
			fmt.Fprintf(w, "%s%s%s%s%s%s\n", prefix, line[:hs], ansiUnderline, line[hs:he], ansiReset, line[he:])
			continue
		}
		fmt.Fprintf(w, "%s%s\n", prefix, line)
		// Display widths, so the carets sit under wide (East Asian)
		// characters too; tabs are copied to stay aligned with the line.
		carets := max(textfmt.Width(string(line[hs:he])), 1)
		var pad strings.Builder
		for i, seg := range strings.Split(string(line[:hs]), "\t") {
			if i > 0 {
				pad.WriteByte('\t')
			}
			pad.WriteString(strings.Repeat(" ", textfmt.Width(seg)))
		}
		fmt.Fprintf(w, "%s%s%s\n", strings.Repeat(" ", len(prefix)), pad.String(), strings.Repeat("^", carets))
	}
}

// maxSnippetWidth is the most bytes of a line a snippet shows (longer than
// any line written by hand; a generated one may be far longer): a line of
// a for_each over 10,000 keys is 100 KB, which no terminal shows.
const maxSnippetWidth = 400

// clipLine cuts a line longer than maxSnippetWidth to a window of it that
// starts a little before the marked part [hs, he), "..." where it was cut,
// and returns the marked part's place in what it returns.
func clipLine(line []byte, hs, he int) ([]byte, int, int) {
	if len(line) <= maxSnippetWidth {
		return line, hs, he
	}
	from := max(0, hs-maxSnippetWidth/4)
	for from > 0 && !utf8.RuneStart(line[from]) {
		from--
	}
	to := min(len(line), from+maxSnippetWidth)
	for to < len(line) && !utf8.RuneStart(line[to]) {
		to--
	}
	var out []byte
	lead := 0
	if from > 0 {
		out, lead = append(out, "..."...), 3
	}
	out = append(out, line[from:to]...)
	if to < len(line) {
		out = append(out, "..."...)
	}
	hs = min(hs, to) - from + lead
	he = min(max(he, hs+from-lead), to) - from + lead
	return out, hs, he
}

// DiagnosticsJSON is the `--json` form of diagnostics, like Terraform's
// `validate -json`.
type DiagnosticsJSON struct {
	FormatVersion string           `json:"format_version"`
	Valid         bool             `json:"valid"`
	ErrorCount    int              `json:"error_count"`
	WarningCount  int              `json:"warning_count"`
	Diagnostics   []DiagnosticJSON `json:"diagnostics"`
}

// DiagnosticJSON is one diagnostic of DiagnosticsJSON.
type DiagnosticJSON struct {
	Severity string       `json:"severity"` // "error" or "warning"
	Summary  string       `json:"summary"`
	Detail   string       `json:"detail"`
	Range    *jsonRange   `json:"range,omitempty"`
	Snippet  *jsonSnippet `json:"snippet,omitempty"`
}

type jsonRange struct {
	Filename string  `json:"filename"`
	Start    jsonPos `json:"start"`
	End      jsonPos `json:"end"`
}

type jsonPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

type jsonSnippet struct {
	Context string `json:"context,omitempty"`
	Code    string `json:"code"`
	// StartLine is the line number of the first line of Code.
	StartLine int `json:"start_line"`
	// HighlightStartOffset and HighlightEndOffset are byte offsets of the
	// range within Code.
	HighlightStartOffset int `json:"highlight_start_offset"`
	HighlightEndOffset   int `json:"highlight_end_offset"`
}

// NewDiagnosticsJSON builds the JSON form of diags, with snippets taken
// from files; diags are scrubbed by the caller as for Diagnostics.
func NewDiagnosticsJSON(files map[string]*hcl.File, diags hcl.Diagnostics) DiagnosticsJSON {
	out := DiagnosticsJSON{FormatVersion: "1", Diagnostics: []DiagnosticJSON{}}
	for _, d := range diags {
		jd := DiagnosticJSON{Severity: "error", Summary: d.Summary, Detail: d.Detail}
		if d.Severity == hcl.DiagWarning {
			jd.Severity = "warning"
			out.WarningCount++
		} else {
			out.ErrorCount++
		}
		if s := d.Subject; s != nil {
			jd.Range = &jsonRange{Filename: s.Filename,
				Start: jsonPos{s.Start.Line, s.Start.Column, s.Start.Byte},
				End:   jsonPos{s.End.Line, s.End.Column, s.End.Byte}}
			if f := files[s.Filename]; f != nil {
				jd.Snippet = snippetJSON(f, *s)
			}
		}
		out.Diagnostics = append(out.Diagnostics, jd)
	}
	out.Valid = out.ErrorCount == 0
	return out
}

func snippetJSON(f *hcl.File, r hcl.Range) *jsonSnippet {
	last := max(r.Start.Line, r.End.Line)
	if last-r.Start.Line >= maxSnippetLines {
		last = r.Start.Line + maxSnippetLines - 1
	}
	lines := linesOf(f.Bytes, r.Start.Line, last)
	if len(lines) == 0 {
		return nil
	}
	from, to := lines[0].start, lines[len(lines)-1].end
	code := strings.ToValidUTF8(string(f.Bytes[from:to]), "?")
	sn := &jsonSnippet{Code: code, StartLine: r.Start.Line,
		HighlightStartOffset: min(max(r.Start.Byte-from, 0), len(code)),
		HighlightEndOffset:   min(max(r.End.Byte-from, 0), len(code))}
	if cs, ok := f.Nav.(interface{ ContextString(int) string }); ok {
		sn.Context = cs.ContextString(r.Start.Byte)
	}
	return sn
}

// WriteDiagnosticsJSON writes doc as one indented JSON object (validate
// --json): format_version "1", valid, error_count, warning_count and
// diagnostics (never null).
func WriteDiagnosticsJSON(w io.Writer, doc DiagnosticsJSON) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
