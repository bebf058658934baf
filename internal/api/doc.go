// Package api is the typed client of both generations of the lead service:
// requests, responses, errors as types, pacing at the rate limit, retries.
// The pacer spaces call starts with golang.org/x/time/rate on an injected
// clock and adds its own parts: calls in flight that follow the latency,
// the pause and slowdown after a 429, and the pace shared with other
// processes (SharedPace).
//
// It also holds the one table of person fields (PersonFields, fields.go):
// each field the service gives about a person, with how it is reached in
// the answers, kept in the state and in the pg backend, merged, shown in
// the spreadsheets and matched in a where. Every place that lists person
// fields reads that table, so a new field of the service is a field of
// its struct and one row (with its label).
//
// It imports nothing of leadsync's but version and textfmt (the one
// redaction of secrets). The API key lives only in the client and is never
// part of an error, log line or value it returns.
package api
