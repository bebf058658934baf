package api

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// AttributeName converts a search parameter of the service to the name a
// configuration (and everything a person reads) calls it: camelCase to
// snake_case (previousCompany -> previous_company, currentStatusCodeFilter
// -> current_status_code_filter). A run of capitals is one word
// (searchURL -> search_url).
func AttributeName(searchParameter string) string {
	rs := []rune(searchParameter)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) {
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			nextLower := i > 0 && i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsLower(rs[i+1])
			if prevLower || nextLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		if r == '-' || r == ' ' || r == '.' {
			b.WriteByte('_')
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

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
