package api

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Operation names, as in Error.Op and the Observer hooks.
const (
	OpFields  = "fields"
	OpSearch  = "search"
	OpPage    = "page"
	OpEnrich  = "enrich"
	OpBilling = "billing"
)

// DefaultMaxRetries is how many times a failed call is retried at most when
// Options.MaxRetries is 0.
const DefaultMaxRetries = 6

const (
	// backoffBase is the first wait of the exponential backoff.
	backoffBase = time.Second
	// backoffMax caps one wait of the exponential backoff.
	backoffMax = 60 * time.Second
	// maxRetryAfter is the longest Retry-After honoured by waiting; a longer
	// one (a used-up monthly quota, say) ends the call with the error.
	maxRetryAfter = 10 * time.Minute
)

// shouldRetry decides whether a call of op that failed with err on its
// attempt-th try (counting from 1) is tried again.
//
// Always retried, up to maxRetries: 429 (nothing was processed) and failures
// that certainly happened before the request was sent (refused connection,
// DNS, dial). Retried for every operation but enrich: 5xx, timeouts, broken
// connections and undecodable answers — for a search or a read the worst
// case is one request more of the monthly quota. Enrich spends a credit and
// an ambiguous failure may have spent it, so enrich is never retried after
// one: the error reaches the user, who decides (Error.MaybeCharged).
// Never retried: 400, 403, other statuses, cancellation, configuration, and
// permanent failures (Error.Permanent: a used-up monthly quota, a host name
// that does not resolve), which another try cannot mend.
func shouldRetry(op string, attempt, maxRetries int, err *Error) bool {
	if err == nil || attempt > maxRetries || err.RetryAfter > maxRetryAfter || err.Permanent() {
		return false
	}
	switch err.Kind {
	case KindRateLimited:
		return true
	case KindNetwork, KindTimeout:
		if !err.sent {
			return true
		}
		return op != OpEnrich
	case KindServer, KindDecode, KindMismatch:
		return op != OpEnrich
	}
	return false
}

// backoff is how long to wait before attempt+1 after the attempt-th try
// failed: the service's Retry-After when it gave one (plus up to 10% so that
// waiting clients do not return in lockstep), else an exponential backoff
// from backoffBase, capped at backoffMax, with "equal jitter" (between half
// and all of the step).
func backoff(attempt int, retryAfter time.Duration, rng *rand.Rand) time.Duration {
	if retryAfter > 0 {
		return retryAfter + time.Duration(rng.Int64N(int64(retryAfter/10)+1))
	}
	if attempt < 1 {
		attempt = 1
	}
	d := backoffMax
	if attempt <= 16 {
		d = min(backoffBase<<(attempt-1), backoffMax)
	}
	half := d / 2
	return half + time.Duration(rng.Int64N(int64(half)+1))
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (relative to now). 0 when absent, invalid or in the past.
func parseRetryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	if n, err := strconv.ParseInt(h, 10, 64); err == nil {
		if n <= 0 {
			return 0
		}
		if n > int64(24*time.Hour/time.Second) {
			n = int64(24 * time.Hour / time.Second)
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(h); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
