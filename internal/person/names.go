package person

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SplitFullName guesses a first and last name from a full name: the last
// word is the last name, everything before it the first name; a full name
// of one word (or written without spaces, as 王伟) is all first name. It is
// a guess, wrong for "Jürgen von Bülow" (von Bülow is the last name) and
// for names written family name first: only for a person the service gave
// no first and last name.
func SplitFullName(full string) (first, last string) {
	full = strings.TrimSpace(full)
	i := strings.LastIndexFunc(full, unicode.IsSpace)
	if i < 0 {
		return full, ""
	}
	_, size := utf8.DecodeRuneInString(full[i:])
	return strings.TrimSpace(full[:i]), full[i+size:]
}
