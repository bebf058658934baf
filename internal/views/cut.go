package views

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxNameRunes bounds a name from the service in a progress line: the
// service is not ours, and a 10 MB name must not become a 10 MB line.
const maxNameRunes = 80

// serviceText makes text from the service fit a line: control characters
// (line breaks, terminal escapes) become spaces, and it is cut to
// maxNameRunes runes with an ellipsis. It reads at most what it keeps.
func serviceText(s string) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		if n == maxNameRunes {
			b.WriteString("…")
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError && size == 1 || unicode.IsControl(r) {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
