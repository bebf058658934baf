// Package api is the typed client of both generations of the lead service:
// requests, responses, errors as types, pacing at the rate limit, retries.
// It imports nothing of leadsync's but version. The API key lives only in
// the client and is never part of an error, log line or value it returns.
package api
