package textfmt

import (
	"strings"

	"github.com/mattn/go-runewidth"
)

// Width is how many character cells s takes on a terminal or in a
// spreadsheet column: wide (East Asian) characters and emoji count two,
// combining marks and joiners none (go-runewidth's Unicode tables,
// grapheme by grapheme). Only the first line counts.
func Width(s string) int {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return runewidth.StringWidth(s)
}

// PadRight pads s with spaces to width cells.
func PadRight(s string, width int) string {
	if w := Width(s); w < width {
		return s + strings.Repeat(" ", width-w)
	}
	return s
}
