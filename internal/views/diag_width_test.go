package views

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/textfmt"
)

// TestSnippetCaretsUnderWideText: the carets under a diagnostic's range
// count display columns, so they sit under wide characters.
func TestSnippetCaretsUnderWideText(t *testing.T) {
	src := []byte("name = \"東京\" + x\n")
	start := strings.Index(string(src), "x")
	var b strings.Builder
	r := hcl.Range{
		Start: hcl.Pos{Line: 1, Column: 13, Byte: strings.Index(string(src), "\"東京\"")},
		End:   hcl.Pos{Line: 1, Column: 17, Byte: start - 3},
	}
	writeSnippet(&b, src, r, false)
	want := "  1: name = \"東京\" + x\n" +
		"            ^^^^^^\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestSnippetOfALongLine: a line longer than maxSnippetWidth (a for_each
// over thousands of keys) is shown as a window of it around the range,
// "..." where it was cut, the carets under the range's part in it.
func TestSnippetOfALongLine(t *testing.T) {
	keys := strings.Repeat(`"c00000", `, 5000)
	src := []byte("  for_each = toset([" + keys + "])\n")
	from := strings.Index(string(src), "toset")
	r := hcl.Range{Start: hcl.Pos{Line: 1, Column: from + 1, Byte: from}, End: hcl.Pos{Line: 1, Column: len(src), Byte: len(src) - 1}}
	var b strings.Builder
	writeSnippet(&b, src, r, false)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines:\n%s", len(lines), b.String())
	}
	code, carets := lines[0], lines[1]
	if len(code) > maxSnippetWidth+20 || !strings.HasSuffix(code, "...") || !strings.Contains(code, "for_each = toset([") {
		t.Errorf("the line is not a window of the source with ... at its end:\n%s", code)
	}
	if at := strings.Index(carets, "^"); at != strings.Index(code, "toset") || strings.Count(carets, "^") != len(code)-3-at {
		t.Errorf("the carets are not under the range's part of the window:\n%s\n%s", code, carets)
	}
	// A range far into the line: the window starts before it, cut at a
	// character's start, with ... in front.
	src = []byte("x = [" + strings.Repeat("\"ü\", ", 400) + "bad]\n")
	at := strings.Index(string(src), "bad")
	r = hcl.Range{Start: hcl.Pos{Line: 1, Column: at + 1, Byte: at}, End: hcl.Pos{Line: 1, Column: at + 4, Byte: at + 3}}
	b.Reset()
	writeSnippet(&b, src, r, false)
	lines = strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if !strings.HasPrefix(lines[0], "  1: ...") || !strings.Contains(lines[0], "bad]") || !utf8.ValidString(lines[0]) {
		t.Errorf("the window does not start with ... before the range:\n%s", lines[0])
	}
	if strings.Index(lines[1], "^^^") != textfmt.Width(lines[0][:strings.Index(lines[0], "bad")]) {
		t.Errorf("the carets are not under the range:\n%s\n%s", lines[0], lines[1])
	}
}
