package textfmt

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// RedactWholeBelow is the length under which a secret is replaced only
// where it stands alone, not inside a longer word or number: a one-letter
// API key must not blank out every "a" of a message. A short secret inside
// a word does not show which part of it the secret is.
const RedactWholeBelow = 8

// Redact replaces every occurrence of secret in s with with. A secret
// shorter than RedactWholeBelow bytes is replaced only where no letter or
// digit touches it on either side. An empty secret changes nothing.
func Redact(s, secret, with string) string {
	if secret == "" || !strings.Contains(s, secret) {
		return s
	}
	if len(secret) >= RedactWholeBelow {
		return strings.ReplaceAll(s, secret, with)
	}
	var b strings.Builder
	for {
		i := strings.Index(s, secret)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(secret)
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[end:])
		b.WriteString(s[:i])
		if wordRune(before) || wordRune(after) {
			b.WriteString(secret)
		} else {
			b.WriteString(with)
		}
		s = s[end:]
	}
}

func wordRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}
