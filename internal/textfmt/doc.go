// Package textfmt holds the small text helpers several packages share:
// display widths, numbers with thousands separators, plurals, quoted lists
// and sorted map keys, and the one redaction of secrets (Redact, with the
// one marker Redacted) that config, plan, api and the pg backend use. It imports nothing of leadsync, so any package may
// import it without breaking the one-way flow config -> plan -> engine ->
// state -> export.
package textfmt
