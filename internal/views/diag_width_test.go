package views

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
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
