package api

import (
	"strings"
	"unicode"
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
