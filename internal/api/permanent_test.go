package api

import (
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// TestQuota429StopsAtOnce: a 429 that says the monthly quota is used up is
// not retried (the run would otherwise try every call 7 times, minutes of
// 429s), and its hint says what to do.
func TestQuota429StopsAtOnce(t *testing.T) {
	for _, tt := range []struct {
		name       string
		message    string
		retryAfter string
	}{
		{"message", "Monthly quota exhausted", "1"},
		{"Retry-After of days", "Too many requests", "2592000"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			hs := newHarness(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Retry-After", tt.retryAfter)
				writeJSON(w, 429, map[string]string{"message": tt.message})
			})
			err := callOp(hs.client, OpSearch)
			e := apiErr(t, err)
			if n := hs.calls.Load(); n != 1 {
				t.Errorf("the server saw %d calls, want 1", n)
			}
			if !e.QuotaExhausted() || !strings.Contains(e.Hint(), "wait for the next invoicing period") {
				t.Errorf("QuotaExhausted = %v, hint %q", e.QuotaExhausted(), e.Hint())
			}
		})
	}
}

// dnsFailure is a transport that cannot resolve the host.
type dnsFailure struct{ calls atomic.Int32 }

func (d *dnsFailure) RoundTrip(*http.Request) (*http.Response, error) {
	d.calls.Add(1)
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "api.exampel.com", IsNotFound: true}}
}

// TestNoSuchHostIsNotRetried: a host name that does not resolve fails at
// once with a hint naming the address setting, not after 7 silent tries.
func TestNoSuchHostIsNotRetried(t *testing.T) {
	tr := &dnsFailure{}
	hs := newHarness(t, nil, func(o *Options) { o.HTTPClient = &http.Client{Transport: tr} })
	err := callOp(hs.client, OpSearch)
	e := apiErr(t, err)
	if tr.calls.Load() != 1 {
		t.Errorf("tried %d times, want 1", tr.calls.Load())
	}
	if e.Kind != KindNetwork || !e.Permanent() || e.MaybeCharged() || !strings.Contains(e.Hint(), "does not resolve") {
		t.Errorf("got %v (permanent %v, hint %q)", e, e.Permanent(), e.Hint())
	}
}
