package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock; the sandbox reads it at each call start.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 5, 20, 10, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fakeSleep records the delays asked for and never waits.
type fakeSleep struct {
	mu    sync.Mutex
	asked []time.Duration
	err   error // returned instead of sleeping when set
}

func (f *fakeSleep) Sleep(ctx context.Context, d time.Duration) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, d)
	if f.err != nil {
		return f.err
	}
	return ctx.Err()
}

func (f *fakeSleep) Asked() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Duration(nil), f.asked...)
}

// harness is a sandbox with a fake clock and sleep, reached through its
// in-process transport.
type harness struct {
	t      *testing.T
	s      *Server
	clock  *fakeClock
	sleep  *fakeSleep
	client *http.Client
	key    string
}

// small populations keep the tests fast; searches that test the cap use the
// default size.
func newHarness(t *testing.T, mod func(*Options)) *harness {
	t.Helper()
	h := &harness{t: t, clock: newClock(), sleep: &fakeSleep{}, key: DefaultKey}
	opts := Options{People: 1500, RateLimit: -1, Now: h.clock.Now, Sleep: h.sleep.Sleep}
	if mod != nil {
		mod(&opts)
	}
	if opts.Key != "" {
		h.key = opts.Key
	}
	h.s = New(opts)
	h.client = &http.Client{Transport: h.s.Transport()}
	return h
}

// result is one answer.
type result struct {
	status int
	header http.Header
	body   []byte
	err    error
}

// do sends one call with the harness's key.
func (h *harness) do(method, path string, body any) result {
	h.t.Helper()
	return h.doKey(h.key, method, path, body)
}

func (h *harness) doKey(key, method, path string, body any) result {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		js, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(js)
	}
	req, err := http.NewRequest(method, BaseURL+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-Api-Key", key)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

// ok sends a call that must answer 200 and decodes it into v.
func (h *harness) ok(method, path string, body, v any) {
	h.t.Helper()
	r := h.do(method, path, body)
	if r.err != nil || r.status != http.StatusOK {
		h.t.Fatalf("%s %s %v: status %d, err %v, body %s", method, path, body, r.status, r.err, r.body)
	}
	if v != nil {
		if err := json.Unmarshal(r.body, v); err != nil {
			h.t.Fatalf("%s %s: decoding %s: %v", method, path, r.body, err)
		}
	}
}

// message returns the message of an error body, failing when the body is
// not {"message": "..."}.
func message(t *testing.T, r result) string {
	t.Helper()
	var e map[string]any
	if err := json.Unmarshal(r.body, &e); err != nil {
		t.Fatalf("error body %q is not JSON: %v", r.body, err)
	}
	msg, ok := e["message"].(string)
	if !ok || msg == "" || len(e) != 1 {
		t.Fatalf("error body %s: want exactly {\"message\": \"...\"}", r.body)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("error Content-Type %q, want application/json", ct)
	}
	return msg
}
