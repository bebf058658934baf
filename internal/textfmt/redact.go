package textfmt

import (
	"slices"
	"strings"
)

// Redacted is what stands in the place of a secret (the API key, a value
// of a sensitive variable, a database password) in everything leadsync
// prints, logs or writes: one marker, whoever redacts.
const Redacted = "[redacted]"

// Redact replaces every occurrence of each secret in s with Redacted, also
// inside longer words: a secret never appears in what leadsync prints,
// even when that blanks out parts of ordinary words (a key of one or two
// letters makes messages hard to read, never leaks). Empty secrets are
// ignored. Which strings are secret (a value, its JSON or URL escape, the
// pieces a parser cut it into) is the caller's to say.
//
// The text is read once, left to right, trying longer secrets first at
// each place: a secret holding another is replaced whole, and a marker
// already put in is never read again (replacing one secret after another
// would cut the marker of the first apart when a second one is a letter
// of "[redacted]").
func Redact(s string, secrets ...string) string {
	kept := make([]string, 0, len(secrets))
	for _, secret := range secrets {
		if secret != "" && strings.Contains(s, secret) {
			kept = append(kept, secret)
		}
	}
	switch len(kept) {
	case 0:
		return s
	case 1:
		return strings.ReplaceAll(s, kept[0], Redacted)
	}
	slices.SortStableFunc(kept, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(kept))
	for _, secret := range kept {
		pairs = append(pairs, secret, Redacted)
	}
	return strings.NewReplacer(pairs...).Replace(s)
}
