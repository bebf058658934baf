// Package api is the typed client of both generations of the lead service:
// requests, responses, errors as types, pacing at the rate limit, retries.
// The pacer spaces call starts with golang.org/x/time/rate on an injected
// clock and adds its own parts: calls in flight that follow the latency,
// the pause and slowdown after a 429, and the pace shared with other
// processes (SharedPace).
//
// It imports nothing of leadsync's but version and textfmt (the one
// redaction of secrets). The API key lives only in the client and is never
// part of an error, log line or value it returns.
package api
