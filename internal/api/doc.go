// Package api is the typed client of both generations of the lead service:
// requests, responses, errors as types, pacing at the rate limit, retries.
// The pacer spaces call starts with golang.org/x/time/rate on an injected
// clock and adds its own parts: calls in flight that follow the latency,
// the pause and slowdown after a 429, and the pace shared with other
// processes (SharedPace).
//
// The person model it decodes answers into (Lead, Profile,
// EnrichedProfile) and the one table of person fields are not its own:
// they live in internal/person, a leaf the state and the writers share
// without importing the client. What stays here is the wire: requests,
// raw results, usage, errors, the client and its pacing.
//
// It imports nothing of leadsync's but person, version and textfmt (the
// one redaction of secrets). The API key lives only in the client and is never
// part of an error, log line or value it returns.
package api
