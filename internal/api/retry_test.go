package api

import (
	"math/rand/v2"
	"net"
	"testing"
	"time"
)

func TestShouldRetry(t *testing.T) {
	const max = 3
	tests := []struct {
		name    string
		op      string
		attempt int
		err     *Error
		want    bool
	}{
		{"success", OpSearch, 1, nil, false},
		{"429 search", OpSearch, 1, &Error{Kind: KindRateLimited, sent: true}, true},
		{"429 enrich", OpEnrich, 1, &Error{Kind: KindRateLimited, sent: true}, true},
		{"429 last retry", OpEnrich, 3, &Error{Kind: KindRateLimited}, true},
		{"429 bounded", OpSearch, 4, &Error{Kind: KindRateLimited}, false},
		{"429 huge Retry-After", OpSearch, 1, &Error{Kind: KindRateLimited, RetryAfter: time.Hour}, false},
		{"429 Retry-After at cap", OpSearch, 1, &Error{Kind: KindRateLimited, RetryAfter: maxRetryAfter}, true},
		{"refused search", OpSearch, 1, &Error{Kind: KindNetwork, sent: false}, true},
		{"refused enrich", OpEnrich, 2, &Error{Kind: KindNetwork, sent: false}, true},
		{"refused bounded", OpEnrich, 4, &Error{Kind: KindNetwork, sent: false}, false},
		{"dial timeout enrich", OpEnrich, 1, &Error{Kind: KindTimeout, sent: false}, true},
		{"reset search", OpSearch, 1, &Error{Kind: KindNetwork, sent: true}, true},
		{"reset page", OpPage, 1, &Error{Kind: KindNetwork, sent: true}, true},
		{"reset enrich", OpEnrich, 1, &Error{Kind: KindNetwork, sent: true}, false},
		{"timeout fields", OpFields, 1, &Error{Kind: KindTimeout, sent: true}, true},
		{"timeout billing", OpBilling, 2, &Error{Kind: KindTimeout, sent: true}, true},
		{"timeout enrich", OpEnrich, 1, &Error{Kind: KindTimeout, sent: true}, false},
		{"500 search", OpSearch, 1, &Error{Kind: KindServer, Status: 500, sent: true}, true},
		{"500 bounded", OpSearch, 4, &Error{Kind: KindServer, Status: 500, sent: true}, false},
		{"500 enrich", OpEnrich, 1, &Error{Kind: KindServer, Status: 500, sent: true}, false},
		{"503 asking for an hour", OpSearch, 1, &Error{Kind: KindServer, Status: 503, RetryAfter: time.Hour, sent: true}, false},
		{"503 with Retry-After", OpSearch, 1, &Error{Kind: KindServer, Status: 503, RetryAfter: 5 * time.Second, sent: true}, true},
		{"503 enrich", OpEnrich, 1, &Error{Kind: KindServer, Status: 503, sent: true}, false},
		{"truncated search", OpSearch, 1, &Error{Kind: KindDecode, sent: true}, true},
		{"truncated enrich", OpEnrich, 1, &Error{Kind: KindDecode, sent: true}, false},
		{"400", OpSearch, 1, &Error{Kind: KindInvalid, Status: 400, sent: true}, false},
		{"403", OpBilling, 1, &Error{Kind: KindForbidden, Status: 403, sent: true}, false},
		{"404", OpFields, 1, &Error{Kind: KindUnexpected, Status: 404, sent: true}, false},
		{"404 no such member", OpPage, 1, &Error{Kind: KindNotFound, Status: 404, sent: true}, false},
		{"canceled", OpSearch, 1, &Error{Kind: KindCanceled}, false},
		{"config", OpSearch, 1, &Error{Kind: KindConfig}, false},
		{"429 monthly quota exhausted", OpSearch, 1, &Error{Kind: KindRateLimited, Status: 429, Message: "Monthly quota exhausted", RetryAfter: 2 * time.Second}, false},
		{"429 rate limit", OpSearch, 1, &Error{Kind: KindRateLimited, Status: 429, Message: "rate limit exceeded", RetryAfter: 2 * time.Second}, true},
		{"no such host", OpSearch, 1, &Error{Kind: KindNetwork, Err: &net.DNSError{Err: "no such host", Name: "api.exampel.com", IsNotFound: true}}, false},
		{"DNS server failure", OpSearch, 1, &Error{Kind: KindNetwork, Err: &net.DNSError{Err: "server misbehaving", Name: "api.example.com", IsTemporary: true}}, true},
		{"mismatch page", OpPage, 1, &Error{Kind: KindMismatch, sent: true}, true},
		{"mismatch enrich", OpEnrich, 1, &Error{Kind: KindMismatch, sent: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := shouldRetry(tt.op, tt.attempt, max, tt.err); got != tt.want {
				t.Errorf("shouldRetry(%s, %d, %v) = %v, want %v", tt.op, tt.attempt, tt.err, got, tt.want)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	tests := []struct {
		attempt    int
		retryAfter time.Duration
		min, max   time.Duration
	}{
		{1, 0, 500 * time.Millisecond, time.Second},
		{2, 0, time.Second, 2 * time.Second},
		{3, 0, 2 * time.Second, 4 * time.Second},
		{6, 0, 16 * time.Second, 32 * time.Second},
		{7, 0, 30 * time.Second, 60 * time.Second},
		{40, 0, 30 * time.Second, 60 * time.Second},
		{0, 0, 500 * time.Millisecond, time.Second},
		{1, 5 * time.Second, 5 * time.Second, 5500 * time.Millisecond},
		{9, 2 * time.Second, 2 * time.Second, 2200 * time.Millisecond},
		{1, time.Millisecond, time.Millisecond, 1100 * time.Microsecond},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tt := range tests {
		seen := map[time.Duration]bool{}
		for range 200 {
			d := backoff(tt.attempt, tt.retryAfter, rng)
			if d < tt.min || d > tt.max {
				t.Fatalf("backoff(%d, %s) = %s, want in [%s, %s]", tt.attempt, tt.retryAfter, d, tt.min, tt.max)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("backoff(%d, %s): no jitter", tt.attempt, tt.retryAfter)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"3", 3 * time.Second},
		{" 120 ", 2 * time.Minute},
		{"0", 0},
		{"-5", 0},
		{"1.5", 0},
		{"soon", 0},
		{"999999999", 24 * time.Hour},
		{"Fri, 20 Nov 2026 12:00:07 GMT", 7 * time.Second},
		{"Friday, 20-Nov-26 12:01:00 GMT", time.Minute},
		{"Fri Nov 20 12:00:30 2026", 30 * time.Second},
		{"Fri, 20 Nov 2026 11:59:00 GMT", 0},
	}
	for _, tt := range tests {
		if got := parseRetryAfter(tt.in, now); got != tt.want {
			t.Errorf("parseRetryAfter(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
