package views

import "github.com/leadsync/leadsync/internal/textfmt"

// The package's short names for the shared text helpers (one
// implementation, in textfmt): thousands writes 9,114; count writes "1
// call", "9,114 calls" with the forms given.
var (
	thousands = textfmt.Thousands
	count     = textfmt.Count
)

// Plural formats n with an English noun, pluralised: "1 call", "2 calls",
// "3 people" (textfmt.Plural).
func Plural(n int, noun string) string { return textfmt.Plural(n, noun) }
