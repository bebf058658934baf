package textfmt

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Thousands writes n with comma separators: 9,114.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Plural writes n, thousands separated, with an English noun, pluralised:
// "1 call", "2 calls", "3 people", "2 addresses", "1,381 leads".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	switch {
	case strings.HasSuffix(noun, "person"):
		noun = strings.TrimSuffix(noun, "person") + "people"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "sh"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "x"):
		noun += "es"
	default:
		noun += "s"
	}
	return Thousands(n) + " " + noun
}

// QuoteList writes each value as a Go-quoted string, joined by sep:
// "a", "b".
func QuoteList(vals []string, sep string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = strconv.Quote(v)
	}
	return strings.Join(q, sep)
}

// Count writes n, thousands separated, with the noun's singular or plural
// form as given: "1 person", "9,114 people".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Thousands(n) + " " + many
}

// Age renders a duration the way people say it: 45s, 3m, 2h5m, 3d.
func Age(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// WithArticle puts "a" or "an" before a noun phrase, by its first letter:
// "an export block", "a search block", "an object".
func WithArticle(s string) string {
	return Article(s) + " " + s
}

// Article is "an" before a word that starts with a vowel sound, "a"
// otherwise. By the spelling of the words leadsync's messages build with
// it: a, e, i, o and "un" (an unknown) take "an"; any other u (a user) and
// consonants take "a".
func Article(s string) string {
	l := strings.ToLower(s)
	if l != "" && (strings.ContainsRune("aeio", rune(l[0])) || strings.HasPrefix(l, "un")) {
		return "an"
	}
	return "a"
}
