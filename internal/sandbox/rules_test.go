package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestKey(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Key = "s3cret-test-key" })
	for _, c := range []struct {
		key, want string
	}{
		{"", "missing X-Api-Key header"},
		{"wrong-key-123", "invalid API key"},
		{DefaultKey, "invalid API key"}, // Options.Key replaces the default
	} {
		r := h.doKey(c.key, http.MethodGet, "/v1/billing", nil)
		if r.status != http.StatusForbidden {
			t.Fatalf("key %q: status %d", c.key, r.status)
		}
		msg := message(t, r)
		if msg != c.want {
			t.Errorf("key %q: message %q, want %q", c.key, msg, c.want)
		}
		if c.key != "" && strings.Contains(string(r.body), c.key) {
			t.Errorf("the answer repeats the key: %s", r.body)
		}
	}
	if r := h.do(http.MethodGet, "/v1/billing", nil); r.status != 200 {
		t.Errorf("right key: status %d", r.status)
	}
	st := h.s.Stats()
	if st.Forbidden != 3 || st.Accepted != 1 || st.Calls != 4 || st.RequestsSpent != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestRateLimit(t *testing.T) {
	type step struct {
		after  time.Duration // advance the clock first
		status int
	}
	ms := time.Millisecond
	for _, c := range []struct {
		name  string
		rate  float64
		steps []step
	}{
		{"one per second", 1, []step{{0, 200}, {500 * ms, 429}, {499 * ms, 429}, {1 * ms, 200}, {999 * ms, 429}, {1 * ms, 200}}},
		{"rejected calls do not count", 1, []step{{0, 200}, {900 * ms, 429}, {100 * ms, 200}, {1000 * ms, 200}}},
		{"burst of two", 2, []step{{0, 200}, {0, 200}, {100 * ms, 429}, {900 * ms, 200}, {0, 200}, {0, 429}}},
		{"half a call per second", 0.5, []step{{0, 200}, {1000 * ms, 429}, {1000 * ms, 200}}},
		{"fraction above one", 2.5, []step{{0, 200}, {0, 200}, {799 * ms, 429}, {1 * ms, 200}}},
		{"disabled", -1, []step{{0, 200}, {0, 200}, {0, 200}}},
		{"scaled: 100 per second in 10ms windows", 100, []step{{0, 200}, {5 * ms, 429}, {5 * ms, 200}, {10 * ms, 200}, {9 * ms, 429}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, func(o *Options) {
				o.RateLimit = c.rate
				if c.rate == 100 {
					o.RateWindow = 10 * ms
				}
			})
			want429 := 0
			for i, s := range c.steps {
				h.clock.Advance(s.after)
				r := h.do(http.MethodGet, "/v1/scrap/fields", nil)
				if r.status != s.status {
					t.Fatalf("step %d: status %d, want %d", i, r.status, s.status)
				}
				if r.status == 429 {
					want429++
					if msg := message(t, r); !strings.Contains(msg, "rate limit exceeded") {
						t.Errorf("message %q", msg)
					}
					if r.header.Get("Retry-After") != "" {
						t.Error("Retry-After sent although Faults.RetryAfter is empty")
					}
				}
			}
			st := h.s.Stats()
			if st.RateLimited != want429 || st.Accepted != len(c.steps)-want429 || len(st.Starts) != st.Accepted {
				t.Errorf("stats: %d 429s, %d accepted, %d starts", st.RateLimited, st.Accepted, len(st.Starts))
			}
		})
	}
}

func TestRateLimitSharedByAllOperations(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.RateLimit = 1
		o.Faults.RetryAfter = "1"
	})
	page := h.s.Population()[0].PageName
	h.ok(http.MethodPost, "/search", map[string]any{"keywords": "x"}, nil)
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"GET", "/v1/billing", nil},
		{"POST", "/v1/scrap", map[string]any{"keywords": "x"}},
		{"POST", "/scrap", map[string]any{"pageName": page}},
		{"POST", "/v1/scrap/enrich", map[string]any{"pageName": page}},
	} {
		r := h.do(c.method, c.path, c.body)
		if r.status != 429 || r.header.Get("Retry-After") != "1" {
			t.Errorf("%s %s right after another call: %d, Retry-After %q", c.method, c.path, r.status, r.header.Get("Retry-After"))
		}
	}
	if h.s.Stats().CreditsSpent != 0 {
		t.Error("a rejected enrich spent credits")
	}
}

func TestFaultStatus500AndHTML(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Faults = Faults{Status500: 1} })
	r := h.do(http.MethodGet, "/v1/billing", nil)
	if r.status != 500 || message(t, r) == "" {
		t.Fatalf("status %d", r.status)
	}
	h.s.SetFaults(Faults{HTML: 1})
	r = h.do(http.MethodPost, "/v1/scrap", map[string]any{"keywords": "x"})
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") || !strings.Contains(string(r.body), "<html>") {
		t.Errorf("HTML fault: %d %q %.40s", r.status, r.header.Get("Content-Type"), r.body)
	}
	if json.Valid(r.body) {
		t.Error("HTML body decodes as JSON")
	}
	h.s.SetFaults(Faults{HTML: 1, HTMLStatus: 502})
	if r = h.do(http.MethodGet, "/v1/billing", nil); r.status != 502 {
		t.Errorf("HTMLStatus 502: got %d", r.status)
	}
	st := h.s.Stats()
	if st.RequestsSpent != 0 || st.Faults[FaultStatus500] != 1 || st.Faults[FaultHTML] != 2 {
		t.Errorf("stats %+v: faults do no work", st)
	}
}

func TestFaultDropThroughTransport(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Faults = Faults{Drop: 1} })
	page := h.s.Population()[3].PageName
	r := h.do(http.MethodPost, "/v1/scrap/enrich", map[string]any{"pageName": page})
	if r.err == nil {
		t.Fatalf("dropped call answered %d", r.status)
	}
	if !errors.Is(r.err, syscall.ECONNRESET) {
		t.Errorf("error %v is not a connection reset", r.err)
	}
	var ne net.Error
	if !errors.As(r.err, &ne) {
		t.Errorf("error %v is not a net.Error", r.err)
	}
	st := h.s.Stats()
	if st.CreditsSpent != 1 || st.Enriched[page] != 1 || st.RequestsSpent != 1 || st.Faults[FaultDrop] != 1 {
		t.Errorf("a dropped enrich does the work: stats %+v", st)
	}
	// A failing call is not dropped: nothing was done.
	if r := h.do(http.MethodPost, "/v1/scrap/page", map[string]any{"pageName": "No_Body"}); r.status != 400 {
		t.Errorf("unknown member under Drop: %d %v", r.status, r.err)
	}
}

func TestFaultTruncate(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Faults = Faults{Truncate: 1} })
	r := h.do(http.MethodPost, "/v1/scrap", map[string]any{"keywords": "Engineer"})
	if r.err != nil || r.status != 200 {
		t.Fatalf("truncated answer: %d %v", r.status, r.err)
	}
	var v any
	if err := json.Unmarshal(r.body, &v); err == nil {
		t.Error("truncated body decodes")
	}
	if r.header.Get("Content-Length") != fmt.Sprint(len(r.body)) {
		t.Errorf("Content-Length %s for %d bytes", r.header.Get("Content-Length"), len(r.body))
	}
	if st := h.s.Stats(); st.RequestsSpent != 1 || st.Faults[FaultTruncate] != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestFaultStormAndRevoke(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.Faults = Faults{Storm429: 3, RetryAfter: "Wed, 20 May 2026 10:00:05 GMT"}
	})
	for i := range 4 {
		r := h.do(http.MethodGet, "/v1/scrap/fields", nil)
		want := 429
		if i == 3 {
			want = 200
		}
		if r.status != want {
			t.Fatalf("call %d: %d, want %d", i, r.status, want)
		}
		if want == 429 && r.header.Get("Retry-After") != "Wed, 20 May 2026 10:00:05 GMT" {
			t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
		}
	}
	h.s.SetFaults(Faults{RevokeKeyAfter: 2})
	for i := range 4 {
		r := h.do(http.MethodGet, "/v1/scrap/fields", nil)
		if want := map[bool]int{true: 200, false: 403}[i < 2]; r.status != want {
			t.Fatalf("after revoke, call %d: %d, want %d", i, r.status, want)
		}
		if i >= 2 && message(t, r) != "API key revoked" {
			t.Errorf("message %s", r.body)
		}
	}
	st := h.s.Stats()
	if st.Faults[FaultStorm429] != 3 || st.RateLimited != 3 || st.Faults[FaultRevoked] != 2 || st.Forbidden != 2 {
		t.Errorf("stats %+v", st)
	}
	h.s.SetFaults(Faults{})
	if r := h.do(http.MethodGet, "/v1/scrap/fields", nil); r.status != 200 {
		t.Errorf("faults cleared: %d", r.status)
	}
}

func TestFaultSharesAreDeterministic(t *testing.T) {
	run := func() ([]int, Stats) {
		h := newHarness(t, func(o *Options) {
			o.People = 200
			o.Faults = Faults{Status500: 0.1, HTML: 0.05, Drop: 0.1, Truncate: 0.05, Slow: 0.2, SlowBy: time.Minute, Seed: 3}
		})
		var got []int
		for range 1000 {
			r := h.do(http.MethodGet, "/v1/billing", nil)
			got = append(got, r.status)
		}
		return got, h.s.Stats()
	}
	a, st := run()
	b, _ := run()
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Error("same fault seed, different faults")
	}
	for f, share := range map[Fault]float64{FaultStatus500: 0.1, FaultHTML: 0.05, FaultDrop: 0.1, FaultTruncate: 0.05, FaultSlow: 0.2} {
		n := float64(st.Faults[f])
		if n < share*1000*0.6 || n > share*1000*1.4 {
			t.Errorf("%s: %v of 1000 calls, want about %v", f, n, share*1000)
		}
	}
}

func TestLatency(t *testing.T) {
	h := newHarness(t, func(o *Options) {
		o.People = 200
		o.SearchLatency = [2]time.Duration{2 * time.Second, 10 * time.Second}
		o.ReadLatency = [2]time.Duration{time.Second, time.Second}
	})
	for range 50 {
		h.ok(http.MethodPost, "/v1/scrap", map[string]any{"keywords": "x"}, nil)
	}
	h.ok(http.MethodGet, "/v1/billing", nil, nil)
	asked := h.sleep.Asked()
	distinct := map[time.Duration]bool{}
	for _, d := range asked[:50] {
		if d < 2*time.Second || d > 10*time.Second {
			t.Errorf("search latency %s outside 2s-10s", d)
		}
		distinct[d] = true
	}
	if len(distinct) < 40 {
		t.Errorf("%d distinct latencies of 50: want a spread", len(distinct))
	}
	if asked[50] != time.Second {
		t.Errorf("read latency %s, want 1s", asked[50])
	}
	// The same seed gives the same latencies.
	h2 := newHarness(t, func(o *Options) {
		o.People = 200
		o.SearchLatency = [2]time.Duration{2 * time.Second, 10 * time.Second}
	})
	for range 50 {
		h2.ok(http.MethodPost, "/search", map[string]any{"keywords": "x"}, nil)
	}
	if fmt.Sprint(h2.sleep.Asked()) != fmt.Sprint(asked[:50]) {
		t.Error("same seed, different latencies")
	}
	// Slow adds SlowBy; NoLatency turns the rest off.
	h3 := newHarness(t, func(o *Options) { o.NoLatency = true; o.Faults = Faults{Slow: 1, SlowBy: 40 * time.Second} })
	h3.ok(http.MethodGet, "/v1/billing", nil, nil)
	if got := h3.sleep.Asked(); len(got) != 1 || got[0] != 40*time.Second {
		t.Errorf("slow call slept %v, want [40s]", got)
	}
	h4 := newHarness(t, func(o *Options) { o.NoLatency = true })
	h4.ok(http.MethodPost, "/v1/scrap", map[string]any{"keywords": "x"}, nil)
	if got := h4.sleep.Asked(); len(got) != 0 {
		t.Errorf("NoLatency slept %v", got)
	}
	h5 := newHarness(t, func(o *Options) {
		o.SearchLatency = [2]time.Duration{-1, -1}
		o.ReadLatency = [2]time.Duration{time.Second, 2 * time.Second}
	})
	h5.ok(http.MethodPost, "/v1/scrap", map[string]any{"keywords": "x"}, nil)
	h5.ok(http.MethodGet, "/v1/billing", nil, nil)
	if got := h5.sleep.Asked(); len(got) != 1 || got[0] < time.Second {
		t.Errorf("no search latency, 1-2s reads: slept %v", got)
	}
}

func TestDefaultLatency(t *testing.T) {
	h := newHarness(t, nil)
	h.ok(http.MethodPost, "/v1/scrap", map[string]any{"keywords": "x"}, nil)
	h.ok(http.MethodGet, "/v1/billing", nil, nil)
	got := h.sleep.Asked()
	if len(got) != 1 || got[0] < DefaultSearchLatency[0] || got[0] > DefaultSearchLatency[1] {
		t.Errorf("default latencies %v: want one search delay in %v, none for reads", got, DefaultSearchLatency)
	}
}

func TestAbandonedCallIsStillPaid(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Faults = Faults{Slow: 1} })
	h.sleep.err = context.DeadlineExceeded
	page := h.s.Population()[0].PageName
	r := h.do(http.MethodPost, "/v1/scrap/enrich", map[string]any{"pageName": page})
	if !errors.Is(r.err, context.DeadlineExceeded) {
		t.Fatalf("abandoned call: %v", r.err)
	}
	st := h.s.Stats()
	if st.Abandoned != 1 || st.CreditsSpent != 1 || st.Enriched[page] != 1 {
		t.Errorf("stats %+v", st)
	}
	// A context that is already done never reaches the service.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, BaseURL+"/v1/billing", nil)
	req.Header.Set("X-Api-Key", DefaultKey)
	if _, err := h.client.Do(req); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled request: %v", err)
	}
	if h.s.Stats().Calls != 1 {
		t.Error("a cancelled request reached the sandbox")
	}
}

func TestRealSleepHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := realSleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("realSleep with a done context: %v", err)
	}
	if err := realSleep(context.Background(), 0); err != nil {
		t.Errorf("realSleep(0): %v", err)
	}
}

func TestServeHTTP(t *testing.T) {
	s := New(Options{People: 300, RateLimit: -1, NoLatency: true})
	srv := httptest.NewServer(s)
	defer srv.Close()
	call := func(path, body string) (*http.Response, []byte, error) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(body))
		req.Header.Set("X-Api-Key", DefaultKey)
		resp, err := srv.Client().Do(req)
		if err != nil {
			return nil, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, b, err
	}
	resp, body, err := call("/v1/scrap", `{"keywords":"a"}`)
	if err != nil || resp.StatusCode != 200 || !json.Valid(body) {
		t.Fatalf("search over HTTP: %v %v", resp, err)
	}
	if resp.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	s.SetFaults(Faults{Drop: 1})
	if _, _, err := call("/scrap", fmt.Sprintf(`{"pageName":%q}`, s.Population()[0].PageName)); err == nil {
		t.Error("dropped connection answered")
	}
	if s.Stats().Faults[FaultDrop] != 1 {
		t.Error("drop not counted")
	}
}

func TestConcurrentUse(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Credits = 1000; o.People = 300 })
	ms := h.s.Population()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				m := ms[g*25+i]
				h.do(http.MethodPost, "/v1/scrap/enrich", map[string]any{"pageName": m.PageName})
				h.do(http.MethodPost, "/search", map[string]any{"keywords": m.LastName})
				_ = h.s.Stats()
			}
		}()
	}
	h.s.SetFaults(Faults{Slow: 0.5})
	wg.Wait()
	st := h.s.Stats()
	if st.Calls != 400 || st.CreditsSpent != 200 || len(st.Enriched) != 200 || st.MaxInFlight < 1 {
		t.Errorf("stats after concurrent calls: calls %d, credits %d, enriched %d", st.Calls, st.CreditsSpent, len(st.Enriched))
	}
	if h.s.Credits() != 800 {
		t.Errorf("balance %d, want 800", h.s.Credits())
	}
}

func TestFaultsValidate(t *testing.T) {
	for _, c := range []struct {
		f    Faults
		want string
	}{
		{Faults{}, ""},
		{Faults{Status500: 0.5, Drop: 0.5}, ""},
		{Faults{Drop: 1.5}, "drop=1.5"},
		{Faults{Slow: -0.1}, "slow=-0.1"},
		{Faults{SlowBy: -time.Second}, "slowby"},
		{Faults{Storm429: -1}, "storm"},
		{Faults{RevokeKeyAfter: -1}, "revoke-after"},
		{Faults{HTMLStatus: 42}, "html-status"},
	} {
		err := c.f.Validate()
		if (err == nil) != (c.want == "") || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Validate(%+v) = %v, want %q", c.f, err, c.want)
		}
	}
}

func TestEnumStrings(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{OpFields.String(), "fields"}, {OpSearchV2.String(), "search (gen 2)"}, {Op(99).String(), "Op(99)"},
		{FaultDrop.String(), "drop"}, {FaultStorm429.String(), "storm"}, {Fault(0).String(), "Fault(0)"},
	} {
		if c.got != c.want {
			t.Errorf("String() = %q, want %q", c.got, c.want)
		}
	}
	if !OpBilling.Gen1() || OpPageV2.Gen1() {
		t.Error("Gen1")
	}
	// Fixed by seed and call number: a known value (so a replay with the
	// same seed sees the same IDs), and another call or seed differs.
	if got := requestID(1, 2); !uuidRe.MatchString(got) || got != "20d6c615-50b4-4943-80b1-422c9092ea68" {
		t.Errorf("requestID(1, 2) = %q", got)
	}
	if requestID(1, 2) == requestID(1, 3) || requestID(1, 2) == requestID(2, 2) {
		t.Error("requestID does not depend on the call number and seed")
	}
}
