package textfmt

import "strings"

// Redact replaces every occurrence of secret in s with with, also inside
// longer words: a secret never appears in what leadsync prints, even when
// that blanks out parts of ordinary words (a key of one or two letters
// makes messages hard to read, never leaks). An empty secret changes
// nothing.
func Redact(s, secret, with string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, with)
}
