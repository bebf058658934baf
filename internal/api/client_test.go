package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api/apitest"
	"github.com/leadsync/leadsync/internal/person"
)

// testKey is distinctive so that a leak is easy to find in any text.
const testKey = "sk-test-S3CRET-key-4711"

// recorder is an Observer that keeps what it was told.
type recorder struct {
	mu     sync.Mutex
	starts []string
	done   []int
	waits  []string
	waited []time.Duration
	errs   []error
}

func (r *recorder) CallStart(op string, attempt int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.starts = append(r.starts, fmt.Sprintf("%s#%d", op, attempt))
}

func (r *recorder) CallDone(op string, status int, d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = append(r.done, status)
	if err != nil {
		r.errs = append(r.errs, err)
	}
}

func (r *recorder) Waiting(op string, d time.Duration, reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waits = append(r.waits, reason)
	r.waited = append(r.waited, d)
}

// leakCheck collects every text the client produced (errors, hints, log
// lines) so that the test can look for the key in all of it.
type leakCheck struct {
	mu  sync.Mutex
	log bytes.Buffer
}

func (l *leakCheck) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.log.Write(p)
}

func (l *leakCheck) check(t *testing.T, errs ...error) {
	t.Helper()
	l.mu.Lock()
	text := l.log.String()
	l.mu.Unlock()
	for _, err := range errs {
		if err == nil {
			continue
		}
		text += err.Error() + fmt.Sprintf("%v %+v", err, err)
		var e *Error
		if errors.As(err, &e) {
			text += e.Hint() + e.Message
		}
	}
	if strings.Contains(text, testKey) {
		t.Fatalf("the API key leaked:\n%s", text)
	}
}

type harness struct {
	t      *testing.T
	srv    *httptest.Server
	client *Client
	clock  *apitest.FakeClock
	obs    *recorder
	leak   *leakCheck
	calls  atomic.Int32
}

type harnessOpt func(*Options)

// newHarness serves h and returns a client of it on an auto clock (waits
// take no real time). h sees the 1-based number of the call.
func newHarness(t *testing.T, h func(w http.ResponseWriter, r *http.Request, n int), opts ...harnessOpt) *harness {
	t.Helper()
	hs := &harness{t: t, clock: apitest.NewAutoClock(t0), obs: &recorder{}, leak: &leakCheck{}}
	hs.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(hs.calls.Add(1))
		h(w, r, n)
	}))
	t.Cleanup(hs.srv.Close)
	o := Options{
		BaseURL:    hs.srv.URL,
		BaseURLV2:  hs.srv.URL + "/v2",
		Key:        testKey,
		HTTPClient: hs.srv.Client(),
		Clock:      hs.clock,
		Observer:   hs.obs,
		Logger:     slog.New(slog.NewTextHandler(hs.leak, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Pacer:      NewPacer(1, 4, hs.clock),
		Rand:       rand.New(rand.NewPCG(1, 1)),
		MaxRetries: 3,
	}
	for _, f := range opts {
		f(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	hs.client = c
	return hs
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// hijackClose reads the request and drops the connection without an answer.
func hijackClose(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	conn, _, err := w.(http.Hijacker).Hijack()
	if err != nil {
		panic(err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // RST instead of FIN: a reset
	}
	conn.Close()
}

func apiErr(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *api.Error", err, err)
	}
	return e
}

var sampleLeads = []person.Lead{{
	FirstName: "Zoë", LastName: "Ćosić", FullName: "Zoë Ćosić", Title: "CTO",
	Location: "Berlin, Germany", Company: "Acme", NetworkID: "123.abc", PageName: "Zoe_Cosic",
}}

const rawItem = `{"cursor":"c1","extra":{"kept":true},"node":{"networkId":{"id":"42.beef","displayName":"Ana **Silva**","displayFlag":"BASIC","location":{"displayLocation":"**Berlin**, Germany"},"profileOccupation":{"occupationOrg":"Acme"},"occupations":[{"category":"WORK_EXPERIENCE","summary":"**CTO**","links":null},{"category":"WORK_EXPERIENCE","summary":"Dev","links":null},{"category":"EDUCATION","summary":"TU","links":null}],"pageName":"Ana_Silva","profileImage":[{"url":"https://img/1"}]},"highlight":{"city":["**Berlin**"],"country":null},"trackingToken":"tt","position":0,"contains":null,"missing":null,"profileSkills":{"topSkills":[]},"sharedContacts":{"total":1},"contactsCount":{"count":2},"networkRelationship":{"permissions":["X"]},"contactDistance":{"distance":3}}}`

// TestOperations exercises every operation of both generations against a
// server that checks method, path, headers and body.
func TestOperations(t *testing.T) {
	profile := person.Profile{FullName: "Ana Silva", CurrentPosition: []person.Position{{JobTitle: "CTO", Company: "Acme", Date: "2 years, since Jan 2024"}}, NetworkURL: "https://n/Ana_Silva", Private: true}
	enriched := person.EnrichedProfile{ID: "u-1", PageName: "Ana_Silva", FullName: "Ana Silva", Email: "ana@acme.example", ValidationStatus: person.StatusCatchAll, CompanyDomain: "acme.example", CreditBalance: 99}
	fields := []Field{{FieldName: "Country", SearchParameter: "countryFilter", Type: FieldArray, PossibleValues: []string{"Germany"}}}
	type seen struct {
		method, path, body string
	}
	var got []seen
	var mu sync.Mutex
	hs := newHarness(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if r.Header.Get("X-Api-Key") != testKey {
			writeJSON(w, 403, map[string]string{"message": "Forbidden"})
			return
		}
		if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "leadsync/") {
			t.Errorf("User-Agent %q", ua)
		}
		b, _ := io.ReadAll(r.Body)
		if len(b) > 0 && r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("Content-Type %q", r.Header.Get("Content-Type"))
		}
		mu.Lock()
		got = append(got, seen{r.Method, r.URL.Path, string(b)})
		mu.Unlock()
		switch r.Method + " " + r.URL.Path {
		case "GET /v1/scrap/fields":
			writeJSON(w, 200, fields)
		case "POST /v1/scrap":
			if strings.Contains(string(b), `"raw":true`) {
				w.Write([]byte("[" + rawItem + "]"))
				return
			}
			writeJSON(w, 200, sampleLeads)
		case "POST /v2/search":
			writeJSON(w, 200, sampleLeads)
		case "POST /v1/scrap/page", "POST /v2/scrap":
			writeJSON(w, 200, profile)
		case "POST /v1/scrap/enrich":
			writeJSON(w, 200, enriched)
		case "GET /v1/billing":
			w.Write([]byte(`{"Remaining requests this month": 9114, "Invoicing start date": "2024-03-15"}`))
		default:
			http.NotFound(w, r)
		}
	})
	ctx := context.Background()
	c := hs.client

	f, err := c.Fields(ctx)
	if err != nil || !cmp.Equal(f, fields) {
		t.Fatalf("Fields = %v, %v", f, err)
	}
	search := SearchRequest{Params: map[string]any{"keywords": "CTO", "city": "Berlin", "countryFilter": []string{"Germany"}}}
	for _, gen := range []Generation{Gen1, Gen2} {
		res, err := c.Search(ctx, gen, search)
		if err != nil {
			t.Fatalf("%s search: %v", gen, err)
		}
		if diff := cmp.Diff(sampleLeads, res.Leads); diff != "" || res.Raw != nil {
			t.Errorf("%s search (-want +got):\n%s", gen, diff)
		}
		p, err := c.Page(ctx, gen, PageRequest{PageName: "Ana_Silva"})
		if err != nil || !cmp.Equal(*p, profile) {
			t.Errorf("%s page = %+v, %v", gen, p, err)
		}
	}
	raw, err := c.Search(ctx, Gen1, SearchRequest{Params: map[string]any{"searchUrl": "https://n/search?keywords=CTO"}, Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	// A raw result has no first and last name; none is guessed here.
	wantLead := person.Lead{FullName: "Ana Silva", Title: "CTO", Location: "Berlin, Germany", PreviousTitle: "Dev", Company: "Acme", NetworkID: "42.beef", PageName: "Ana_Silva"}
	if len(raw.Raw) != 1 || !cmp.Equal(raw.Leads, []person.Lead{wantLead}) {
		t.Fatalf("raw search = %+v", raw)
	}
	if string(raw.Raw[0].Raw) != rawItem {
		t.Errorf("raw item not kept whole:\n%s", raw.Raw[0].Raw)
	}
	if raw.Raw[0].Node.ContactDistance.Distance != 3 || raw.Raw[0].Node.Highlight["city"][0] != "**Berlin**" {
		t.Errorf("raw node = %+v", raw.Raw[0].Node)
	}
	e, err := c.Enrich(ctx, PageRequest{ProfileURL: "https://n/Ana_Silva"})
	if err != nil || !cmp.Equal(*e, enriched) {
		t.Errorf("enrich = %+v, %v", e, err)
	}
	u, err := c.Billing(ctx)
	if err != nil || *u != (Usage{RemainingRequests: 9114, InvoicingStartDate: "2024-03-15"}) {
		t.Errorf("billing = %+v, %v", u, err)
	}

	want := []seen{
		{"GET", "/v1/scrap/fields", ""},
		{"POST", "/v1/scrap", `{"city":"Berlin","countryFilter":["Germany"],"keywords":"CTO"}`},
		{"POST", "/v1/scrap/page", `{"pageName":"Ana_Silva"}`},
		{"POST", "/v2/search", `{"city":"Berlin","countryFilter":["Germany"],"keywords":"CTO"}`},
		{"POST", "/v2/scrap", `{"pageName":"Ana_Silva"}`},
		{"POST", "/v1/scrap", `{"raw":true,"searchUrl":"https://n/search?keywords=CTO"}`},
		{"POST", "/v1/scrap/enrich", `{"profileUrl":"https://n/Ana_Silva"}`},
		{"GET", "/v1/billing", ""},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(seen{})); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	// Eight calls at 1 per second: the pacer spaced them on the fake clock.
	if st := c.Pacer().Stats(); st.Starts != 8 || st.Sent != 8 || st.LastStart.Sub(st.FirstStart) < 7*time.Second {
		t.Errorf("pacer stats %+v", st)
	}
	if !strings.Contains(hs.leak.log.String(), "api_key=[redacted]") || !strings.Contains(hs.leak.log.String(), "path=/v1/billing") {
		t.Errorf("debug log:\n%s", hs.leak.log.String())
	}
	hs.leak.check(t)
}

// TestLocalErrors covers calls refused before anything is sent.
func TestLocalErrors(t *testing.T) {
	hs := newHarness(t, func(w http.ResponseWriter, r *http.Request, n int) { t.Errorf("unexpected request %s", r.URL.Path) })
	noV2, err := New(Options{BaseURL: hs.srv.URL, Key: testKey, Pacer: NewPacer(1, 1, hs.clock), Clock: hs.clock})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tests := []struct {
		name string
		call func() error
		kind ErrorKind
		msg  string
	}{
		{"gen 2 without base_url_v2", func() error {
			_, err := noV2.Search(ctx, Gen2, SearchRequest{Params: map[string]any{"keywords": "x"}})
			return err
		}, KindConfig, "api.base_url_v2 is not set"},
		{"gen 2 page without base_url_v2", func() error { _, err := noV2.Page(ctx, Gen2, PageRequest{PageName: "x"}); return err }, KindConfig, "api.base_url_v2"},
		{"raw in gen 2", func() error {
			_, err := hs.client.Search(ctx, Gen2, SearchRequest{Params: map[string]any{"keywords": "x"}, Raw: true})
			return err
		}, KindConfig, "only in generation 1"},
		{"no keywords", func() error {
			_, err := hs.client.Search(ctx, Gen1, SearchRequest{Params: map[string]any{"city": "Berlin"}})
			return err
		}, KindInvalid, "keywords or searchUrl"},
		{"page: neither", func() error { _, err := hs.client.Page(ctx, Gen1, PageRequest{}); return err }, KindInvalid, "page name or a profile URL"},
		{"enrich: both", func() error {
			_, err := hs.client.Enrich(ctx, PageRequest{PageName: "a", ProfileURL: "b"})
			return err
		}, KindInvalid, "not both"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := apiErr(t, tt.call())
			if e.Kind != tt.kind || !strings.Contains(e.Error(), tt.msg) || e.MaybeCharged() || e.Sent() {
				t.Errorf("got %v (kind %v, charged %v)", e, e.Kind, e.MaybeCharged())
			}
		})
	}
	for _, o := range []Options{
		{BaseURL: "http://x"},
		{Key: "k"},
		{Key: "k", BaseURL: "ftp://x"},
		{Key: "k", BaseURL: "https://user:" + testKey + "@x"},
		{Key: "a\nb", BaseURL: "https://x"},
	} {
		if _, err := New(o); err == nil || strings.Contains(err.Error(), testKey) {
			t.Errorf("New(%+v) = %v", o.BaseURL, err)
		}
	}
}

// TestMisbehavingServers runs each call against servers that fail in the
// ways a real one does and checks the outcome, the number of attempts and
// whether a credit may have been spent.
func TestMisbehavingServers(t *testing.T) {
	retryDate := t0.Add(3 * time.Second).UTC().Format(http.TimeFormat)
	tests := []struct {
		name     string
		handler  func(w http.ResponseWriter, r *http.Request, n int)
		op       string
		timeout  time.Duration
		ok       bool
		kind     ErrorKind
		status   int
		attempts int // requests the server saw
		charged  bool
		msg      string
		waits    []string
		minWait  time.Duration // total fake time waited at least
	}{
		{
			name: "429 storm without Retry-After, then success", op: OpSearch, ok: true, attempts: 4,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				if n <= 3 {
					w.WriteHeader(429)
					return
				}
				writeJSON(w, 200, sampleLeads)
			},
			waits:   []string{"rate limited (429)", "rate limited (429)", "rate limited (429)"},
			minWait: 500*time.Millisecond + time.Second + 2*time.Second,
		},
		{
			name: "429 storm with Retry-After seconds, enrich", op: OpEnrich, ok: true, attempts: 3,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				if n <= 2 {
					w.Header().Set("Retry-After", "5")
					writeJSON(w, 429, map[string]string{"message": "Too many requests"})
					return
				}
				writeJSON(w, 200, person.EnrichedProfile{PageName: "x"})
			},
			waits:   []string{"rate limited (429)", "rate limited (429)"},
			minWait: 10 * time.Second,
		},
		{
			name: "429 with Retry-After date", op: OpBilling, ok: true, attempts: 2,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					w.Header().Set("Retry-After", retryDate)
					w.WriteHeader(429)
					return
				}
				writeJSON(w, 200, Usage{RemainingRequests: 1})
			},
			waits:   []string{"rate limited (429)"},
			minWait: 2 * time.Second,
		},
		{
			name: "endless 429", op: OpEnrich, kind: KindRateLimited, status: 429, attempts: 4,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Retry-After", "1")
				writeJSON(w, 429, map[string]string{"message": "Too many requests"})
			},
			msg: "Too many requests (after 4 attempts)",
		},
		{
			name: "429 asking for an hour", op: OpSearch, kind: KindRateLimited, status: 429, attempts: 1,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Retry-After", "3600")
				w.WriteHeader(429)
			},
		},
		{
			name: "500 then success, search", op: OpSearch, ok: true, attempts: 2,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					writeJSON(w, 500, map[string]string{"error": "internal"})
					return
				}
				writeJSON(w, 200, sampleLeads)
			},
			waits: []string{"retry after server error"},
		},
		{
			name: "500 on enrich: not retried", op: OpEnrich, kind: KindServer, status: 500, attempts: 1, charged: true, msg: "internal",
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				writeJSON(w, 500, map[string]string{"error": "internal"})
			},
		},
		{
			name: "500s until retries run out", op: OpPage, kind: KindServer, status: 503, attempts: 4, charged: true,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				w.WriteHeader(503)
			},
		},
		{
			name: "HTML error page from a proxy", op: OpFields, kind: KindServer, status: 502, attempts: 4, charged: true,
			msg: "an HTML page: 502 Bad Gateway",
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(502)
				w.Write([]byte("<html><head><title>502 Bad\n Gateway</title></head><body><h1>nginx</h1></body></html>"))
			},
		},
		{
			name: "HTML page with 200", op: OpEnrich, kind: KindDecode, status: 200, attempts: 1, charged: true,
			msg: "expected JSON, got an HTML page: Login",
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Write([]byte("<!DOCTYPE html><html><title>Login</title></html>"))
			},
		},
		{
			name: "truncated JSON, search retried", op: OpSearch, ok: true, attempts: 2,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					w.Write([]byte(`[{"firstName":"Zo`))
					return
				}
				writeJSON(w, 200, sampleLeads)
			},
			waits: []string{"retry after undecodable answer"},
		},
		{
			name: "truncated JSON on enrich", op: OpEnrich, kind: KindDecode, status: 200, attempts: 1, charged: true, msg: "truncated JSON",
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Write([]byte(`{"id":"1","email":"a@b`))
			},
		},
		{
			name: "body cut short of its Content-Length", op: OpEnrich, kind: KindNetwork, attempts: 1, charged: true,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Content-Length", "500")
				w.Write([]byte(`{"id":"1"`))
			},
		},
		{
			name: "wrong JSON shape", op: OpBilling, kind: KindDecode, status: 200, attempts: 4, charged: true, msg: "unexpected JSON shape",
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Write([]byte(`["not", "usage"]`))
			},
		},
		{
			name: "connection reset, search retried", op: OpSearch, ok: true, attempts: 2,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				if n == 1 {
					hijackClose(w, r)
					return
				}
				writeJSON(w, 200, sampleLeads)
			},
			waits: []string{"retry after network error"},
		},
		{
			name: "connection reset on enrich: not retried", op: OpEnrich, kind: KindNetwork, attempts: 1, charged: true,
			handler: func(w http.ResponseWriter, r *http.Request, n int) { hijackClose(w, r) },
		},
		{
			name: "slow answer: timeout, retried", op: OpSearch, timeout: 50 * time.Millisecond, kind: KindTimeout, attempts: 4, charged: true, msg: "no complete answer within 50ms",
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				// The server notices the client leaving only once the body is read.
				_, _ = io.Copy(io.Discard, r.Body)
				<-r.Context().Done()
			},
		},
		{
			name: "slow body on enrich: timeout, not retried", op: OpEnrich, timeout: 50 * time.Millisecond, kind: KindTimeout, status: 0, attempts: 1, charged: true,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Length", "100")
				w.Write([]byte(`{"id":`))
				w.(http.Flusher).Flush()
				<-r.Context().Done()
			},
		},
		{
			name: "wrong key", op: OpEnrich, kind: KindForbidden, status: 403, attempts: 1, msg: "invalid API key [redacted]",
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				// A careless service that echoes the key: it must not reach the user.
				writeJSON(w, 403, map[string]string{"message": "invalid API key " + r.Header.Get("X-Api-Key")})
			},
		},
		{
			name: "400 with the service's message", op: OpSearch, kind: KindInvalid, status: 400, attempts: 1,
			msg: `invalid request (HTTP 400): "Marketing" is not a valid industryFilter`,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				writeJSON(w, 400, map[string]string{"message": `  "Marketing" is not a valid industryFilter` + "\n"})
			},
		},
		{
			name: "400 with a text body", op: OpPage, kind: KindInvalid, status: 400, attempts: 1, msg: "Bad Request: pageName",
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				http.Error(w, "Bad Request: pageName", 400)
			},
		},
		{
			name: "404: wrong base URL", op: OpFields, kind: KindUnexpected, status: 404, attempts: 1,
			handler: func(w http.ResponseWriter, r *http.Request, n int) { http.NotFound(w, r) },
		},
		{
			name: "redirect not followed", op: OpEnrich, kind: KindUnexpected, status: 302, attempts: 1, msg: "redirect to https://elsewhere.example/steal not followed",
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				http.Redirect(w, r, "https://elsewhere.example/steal", http.StatusFound)
			},
		},
		{
			name: "empty list: no results", op: OpSearch, ok: true, attempts: 1,
			handler: func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte("[]")) },
		},
		// A 200 that carries nothing, or someone else, is never a success.
		{
			name: "empty body on search: undecodable, retried", op: OpSearch, kind: KindDecode, status: 200, attempts: 4, charged: true, msg: "an empty answer",
			handler: func(w http.ResponseWriter, r *http.Request, n int) { w.WriteHeader(200) },
		},
		{
			name: "null search: undecodable", op: OpSearch, kind: KindDecode, status: 200, attempts: 4, charged: true, msg: "a null answer",
			handler: func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte(" null\n")) },
		},
		{
			name: "{} search: undecodable", op: OpSearch, kind: KindDecode, status: 200, attempts: 4, charged: true, msg: "unexpected JSON shape",
			handler: func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte("{}")) },
		},
		{
			name: "[null] search: undecodable", op: OpSearch, kind: KindDecode, status: 200, attempts: 4, charged: true, msg: "result 1 of 1 has no networkId and pageName",
			handler: func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte("[null]")) },
		},
		{
			name: "lead without networkId: undecodable", op: OpSearch, kind: KindDecode, status: 200, attempts: 4, charged: true, msg: "result 2 of 2 has no networkId",
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Write([]byte(`[{"networkId":"1.a","pageName":"A"},{"pageName":"B","fullName":"B"}]`))
			},
		},
		{
			name: "lead without pageName: undecodable", op: OpSearch, kind: KindDecode, status: 200, attempts: 4, charged: true, msg: "has no pageName",
			handler: func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte(`[{"networkId":"1.a"}]`)) },
		},
		{
			name: "{} on enrich: undecodable, not retried", op: OpEnrich, kind: KindDecode, status: 200, attempts: 1, charged: true, msg: "an empty object",
			handler: func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte("{}")) },
		},
		{
			name: "null on enrich: undecodable", op: OpEnrich, kind: KindDecode, status: 200, attempts: 1, charged: true, msg: "a null answer",
			handler: func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte("null")) },
		},
		{
			name: "enrich answer without a person", op: OpEnrich, kind: KindDecode, status: 200, attempts: 1, charged: true, msg: "without pageName and networkId",
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Write([]byte(`{"email":"a@b.c","validationStatus":"valid"}`))
			},
		},
		{
			name: "enrich answer for another person", op: OpEnrich, kind: KindMismatch, status: 200, attempts: 1, charged: true, msg: `asked for "x", the answer is about "Someone_Else"`,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Write([]byte(`{"pageName":"Someone_Else","networkId":"9.f","email":"s@e.com"}`))
			},
		},
		{
			name: "null profile: undecodable, retried", op: OpPage, kind: KindDecode, status: 200, attempts: 4, charged: true, msg: "a null answer",
			handler: func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte("null")) },
		},
		{
			name: "{} profile: undecodable", op: OpPage, kind: KindDecode, status: 200, attempts: 4, charged: true, msg: "an empty object",
			handler: func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte("{}")) },
		},
		{
			name: "profile of another person", op: OpPage, kind: KindMismatch, status: 200, attempts: 4, charged: true, msg: `the answer is the profile of "Other"`,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Write([]byte(`{"fullName":"O","networkUrl":"https://network.example/profile/Other"}`))
			},
		},
		{
			name: "profile of the person asked, other case", op: OpPage, ok: true, attempts: 1,
			handler: func(w http.ResponseWriter, r *http.Request, n int) {
				w.Write([]byte(`{"fullName":"X","networkUrl":"https://network.example/profile/X"}`))
			},
		},
		{
			name: "{} usage: undecodable", op: OpBilling, kind: KindDecode, status: 200, attempts: 4, charged: true, msg: "an empty object",
			handler: func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte("{}")) },
		},
		{
			name: "[null] fields: undecodable", op: OpFields, kind: KindDecode, status: 200, attempts: 4, charged: true, msg: "field 1 of 1",
			handler: func(w http.ResponseWriter, r *http.Request, n int) { w.Write([]byte("[null]")) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := newHarness(t, tt.handler, func(o *Options) { o.Timeout = tt.timeout })
			err := callOp(hs.client, tt.op)
			if int(hs.calls.Load()) != tt.attempts {
				t.Errorf("server saw %d requests, want %d", hs.calls.Load(), tt.attempts)
			}
			if tt.ok {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
			} else {
				e := apiErr(t, err)
				if e.Kind != tt.kind || e.Status != tt.status || e.Op != tt.op {
					t.Errorf("got %v: kind %v status %d op %s, want %v %d %s", e, e.Kind, e.Status, e.Op, tt.kind, tt.status, tt.op)
				}
				if e.MaybeCharged() != tt.charged {
					t.Errorf("MaybeCharged = %v, want %v (%v)", e.MaybeCharged(), tt.charged, e)
				}
				if !strings.Contains(e.Error(), tt.msg) {
					t.Errorf("error %q does not contain %q", e.Error(), tt.msg)
				}
				if e.Hint() == "" {
					t.Errorf("no hint for %v", e)
				}
				if e.Attempts != tt.attempts {
					t.Errorf("Attempts = %d, want %d", e.Attempts, tt.attempts)
				}
			}
			if tt.waits != nil && !cmp.Equal(hs.obs.waits, tt.waits) {
				t.Errorf("waits %q, want %q", hs.obs.waits, tt.waits)
			}
			if hs.clock.Slept() < tt.minWait {
				t.Errorf("waited %s, want at least %s", hs.clock.Slept(), tt.minWait)
			}
			if len(hs.obs.starts) != tt.attempts || len(hs.obs.done) != tt.attempts {
				t.Errorf("observer: starts %v, done %v", hs.obs.starts, hs.obs.done)
			}
			hs.leak.check(t, append(hs.obs.errs, err)...)
		})
	}
}

func callOp(c *Client, op string) error {
	ctx := context.Background()
	var err error
	switch op {
	case OpFields:
		_, err = c.Fields(ctx)
	case OpSearch:
		_, err = c.Search(ctx, Gen1, SearchRequest{Params: map[string]any{"keywords": "CTO"}})
	case OpPage:
		_, err = c.Page(ctx, Gen2, PageRequest{PageName: "x"})
	case OpEnrich:
		_, err = c.Enrich(ctx, PageRequest{PageName: "x"})
	case OpBilling:
		_, err = c.Billing(ctx)
	}
	return err
}

// TestConnectionRefused: nothing listens, so nothing can have been
// processed: even enrich is retried (bounded), and no credit was spent.
func TestConnectionRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	clock := apitest.NewAutoClock(t0)
	obs := &recorder{}
	c, err := New(Options{BaseURL: "http://" + addr, Key: testKey, Clock: clock, Pacer: NewPacer(1, 1, clock), Observer: obs, MaxRetries: 2})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Enrich(context.Background(), PageRequest{PageName: "x"})
	e := apiErr(t, err)
	if e.Kind != KindNetwork || e.MaybeCharged() || e.Sent() || e.Attempts != 3 {
		t.Fatalf("got %v: kind %v charged %v attempts %d", e, e.Kind, e.MaybeCharged(), e.Attempts)
	}
	if !cmp.Equal(obs.waits, []string{"retry after network error", "retry after network error"}) {
		t.Errorf("waits %q", obs.waits)
	}
}

// TestCancelDuringBackoff: an interrupt while waiting to retry ends the call
// at once with KindCanceled.
func TestCancelDuringBackoff(t *testing.T) {
	clock := apitest.NewFakeClock(t0)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }))
	defer srv.Close()
	c, err := New(Options{BaseURL: srv.URL, Key: testKey, Clock: clock, Pacer: NewPacer(1, 1, clock)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := c.Search(ctx, Gen1, SearchRequest{Params: map[string]any{"keywords": "x"}})
		errc <- err
	}()
	waitFor(t, "backoff timer", func() bool { return clock.Pending() > 0 })
	cancel()
	e := apiErr(t, <-errc)
	if e.Kind != KindCanceled || !e.MaybeCharged() || !strings.Contains(e.Error(), "server error (HTTP 500)") {
		t.Fatalf("got %v (charged %v)", e, e.MaybeCharged())
	}
}

// TestSharedPacingAcrossOperations: searches, reads and enrichments of one
// key, in both generations and from several clients, share one schedule.
func TestSharedPacingAcrossOperations(t *testing.T) {
	clock := apitest.NewAutoClock(t0)
	var mu sync.Mutex
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, clock.Now())
		mu.Unlock()
		switch r.URL.Path {
		case "/v1/scrap", "/v2/search":
			writeJSON(w, 200, sampleLeads)
		case "/v1/scrap/enrich":
			w.Write([]byte(`{"pageName":"x","networkId":"1.a"}`))
		default:
			w.Write([]byte(`{"fullName":"X","networkUrl":"https://network.example/x"}`))
		}
	}))
	defer srv.Close()
	key := fmt.Sprintf("%s-%d", testKey, rand.Int64())
	var clients []*Client
	for range 2 {
		c, err := New(Options{BaseURL: srv.URL, BaseURLV2: srv.URL + "/v2", Key: key, Clock: clock, RateLimit: 1, Parallelism: 3})
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, c)
	}
	if clients[0].Pacer() != clients[1].Pacer() {
		t.Fatal("two clients of one key do not share a pacer")
	}
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clients[i%2]
			var err error
			switch i % 4 {
			case 0:
				_, err = c.Search(context.Background(), Gen1, SearchRequest{Params: map[string]any{"keywords": "x"}})
			case 1:
				_, err = c.Search(context.Background(), Gen2, SearchRequest{Params: map[string]any{"keywords": "x"}})
			case 2:
				_, err = c.Page(context.Background(), Gen2, PageRequest{PageName: "x"})
			case 3:
				_, err = c.Enrich(context.Background(), PageRequest{PageName: "x"})
			}
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	st := clients[0].Pacer().Stats()
	if st.Starts != 12 || st.LastStart.Sub(st.FirstStart) < 11*time.Second {
		t.Fatalf("12 calls of one key: %+v", st)
	}
}

func TestErrorKinds(t *testing.T) {
	for k := KindInvalid; k <= KindNotFound; k++ {
		if strings.HasPrefix(k.String(), "ErrorKind(") {
			t.Errorf("kind %d has no name", int(k))
		}
		if (&Error{Kind: k}).Hint() == "" {
			t.Errorf("kind %v has no hint", k)
		}
	}
	if ErrorKind(99).String() != "ErrorKind(99)" {
		t.Error(ErrorKind(99).String())
	}
	charged := map[string]struct {
		e    Error
		want bool
	}{
		"400":            {Error{Kind: KindInvalid, sent: true}, false},
		"403":            {Error{Kind: KindForbidden, sent: true}, false},
		"429":            {Error{Kind: KindRateLimited, sent: true}, false},
		"500":            {Error{Kind: KindServer, sent: true}, true},
		"decode":         {Error{Kind: KindDecode, sent: true}, true},
		"refused":        {Error{Kind: KindNetwork}, false},
		"reset":          {Error{Kind: KindNetwork, sent: true}, true},
		"timeout sent":   {Error{Kind: KindTimeout, sent: true}, true},
		"dial timeout":   {Error{Kind: KindTimeout}, false},
		"canceled early": {Error{Kind: KindCanceled}, false},
		"canceled late":  {Error{Kind: KindCanceled, sent: true}, true},
		"config":         {Error{Kind: KindConfig}, false},
		"no such member": {Error{Kind: KindNotFound, sent: true}, false},
	}
	for name, tt := range charged {
		if got := tt.e.MaybeCharged(); got != tt.want {
			t.Errorf("%s: MaybeCharged = %v, want %v", name, got, tt.want)
		}
	}
}

func TestServiceMessage(t *testing.T) {
	tests := []struct{ body, ct, want string }{
		{"", "", ""},
		{`{"message":"bad"}`, "application/json", "bad"},
		{`{"error":{"code":1}}`, "", `{"code":1}`},
		{`{"other":1}`, "", `{"other":1}`},
		{`"just a string"`, "", "just a string"},
		{"<html><title>Oops &amp; co</title></html>", "", "an HTML page: Oops & co"},
		{"<p>no title</p>", "text/html", "an HTML page"},
		{"plain\n\n text", "text/plain", "plain text"},
		{strings.Repeat("é", 300), "", strings.Repeat("é", 200) + "…"},
		// A long title is cut with its prefix: the message stays within 200 runes.
		{"<title>" + strings.Repeat("0", 190) + "</title>", "", "an HTML page: " + strings.Repeat("0", 186) + "…"},
	}
	for _, tt := range tests {
		if got := serviceMessage([]byte(tt.body), tt.ct); got != tt.want {
			t.Errorf("serviceMessage(%q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

// TestBackoffBase: the exponential backoff scales with Options.BackoffBase;
// a Retry-After is honoured as given.
func TestBackoffBase(t *testing.T) {
	hs := newHarness(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			w.WriteHeader(500)
			return
		}
		writeJSON(w, 200, sampleLeads)
	}, func(o *Options) {
		o.BackoffBase = 10 * time.Millisecond
		o.Pacer = NewPacer(1000, 4, o.Clock)
	})
	if err := callOp(hs.client, OpSearch); err != nil {
		t.Fatal(err)
	}
	if len(hs.obs.waited) != 1 || hs.obs.waited[0] < 5*time.Millisecond || hs.obs.waited[0] > 10*time.Millisecond {
		t.Fatalf("waited %v, want one wait of 5–10 ms", hs.obs.waited)
	}
}
