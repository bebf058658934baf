package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/textfmt"
	"github.com/leadsync/leadsync/internal/version"
)

// MaxSearchLatency is how long one search can take: the service runs it
// live on the network (spec section 1).
const MaxSearchLatency = 30 * time.Second

// DefaultTimeout is the per-call timeout when Options.Timeout is 0. A search
// runs live and can take MaxSearchLatency; the rest is headroom for slow
// networks.
const DefaultTimeout = 90 * time.Second

// maxBody bounds how much of an answer is read: 300 raw leads are well below.
const maxBody = 64 << 20

// Options configure a Client.
type Options struct {
	// BaseURL is {base_url} of the first generation ("https://host"), without
	// /v1. Needed for fields, enrich, billing and generation-1 search/page.
	BaseURL string
	// BaseURLV2 is {base_url_v2} of the second generation. Needed only for
	// generation-2 search and page.
	BaseURLV2 string
	// Key is the API key, sent as X-Api-Key and nowhere else.
	Key string
	// HTTPClient makes the requests; nil means a client with
	// http.DefaultTransport. Redirects are never followed (the key must not
	// travel elsewhere), whatever the client's own policy.
	HTTPClient *http.Client
	// RateLimit is the call starts per second allowed for the key; default 1.
	RateLimit float64
	// Parallelism is the ceiling of calls in flight at once; default
	// DefaultParallelism. The number in flight adapts to the latencies
	// observed below it.
	Parallelism int
	// Timeout bounds one attempt of one call; default DefaultTimeout.
	Timeout time.Duration
	// Clock is the time pacing and backoff run on; nil: the system clock.
	Clock Clock
	// Logger receives debug lines (method, path, status, duration, retries);
	// nil: no logging. The key is shown as [redacted].
	Logger *slog.Logger
	// Observer is told about calls and waits; nil: nobody.
	Observer Observer
	// MaxRetries bounds the retries of one call; 0: DefaultMaxRetries,
	// negative: no retries.
	MaxRetries int
	// Pacer paces the calls; nil: the process's shared pacer of the key
	// (SharedPacer), built from RateLimit, Parallelism and Clock.
	Pacer *Pacer
	// Rand is the source of backoff jitter; nil: a randomly seeded one.
	Rand *rand.Rand
	// SharedPace, when set, shares the key's pace with other processes
	// (see SharedPace); the client's pacer waits for their calls too.
	SharedPace SharedPace
	// BackoffBase is the first step of the exponential backoff used when
	// the service gives no Retry-After; 0: 1 s. Every step scales with it
	// (the cap is 60 times it). Benchmarks that scale time down set it.
	BackoffBase time.Duration
}

// Client is the lead service over HTTP, both generations. It is safe for
// concurrent use; concurrent calls are paced together.
type Client struct {
	base, baseV2 string
	key          string
	redact       redactor
	hc           *http.Client
	pacer        *Pacer
	timeout      time.Duration
	maxRetries   int
	clock        Clock
	log          *slog.Logger
	obs          Observer
	userAgent    string

	backoffScale float64 // BackoffBase / backoffBase

	rngMu sync.Mutex
	rng   *rand.Rand
}

var _ Service = (*Client)(nil)

// New returns a client for opts. It fails when the key is empty or a base
// URL is malformed; a missing BaseURLV2 only fails generation-2 calls.
func New(opts Options) (*Client, error) {
	if err := checkKey(opts.Key); err != nil {
		return nil, err
	}
	r := redactor(opts.Key)
	base, err := checkBase("base_url", opts.BaseURL, r)
	if err != nil {
		return nil, err
	}
	baseV2, err := checkBase("base_url_v2", opts.BaseURLV2, r)
	if err != nil {
		return nil, err
	}
	if base == "" && baseV2 == "" {
		return nil, errors.New("api: no base URL")
	}
	c := &Client{
		base:       base,
		baseV2:     baseV2,
		key:        opts.Key,
		redact:     r,
		timeout:    opts.Timeout,
		maxRetries: opts.MaxRetries,
		clock:      opts.Clock,
		log:        opts.Logger,
		obs:        opts.Observer,
		pacer:      opts.Pacer,
		rng:        opts.Rand,
		userAgent:  "leadsync/" + version.String(),
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	c.backoffScale = 1
	if opts.BackoffBase > 0 {
		c.backoffScale = float64(opts.BackoffBase) / float64(backoffBase)
	}
	if c.maxRetries == 0 {
		c.maxRetries = DefaultMaxRetries
	} else if c.maxRetries < 0 {
		c.maxRetries = 0
	}
	if c.clock == nil {
		c.clock = SystemClock{}
	}
	if c.obs == nil {
		c.obs = NopObserver{}
	}
	if c.pacer == nil {
		c.pacer = SharedPacer(opts.Key, opts.RateLimit, opts.Parallelism, c.clock)
	}
	if opts.SharedPace != nil {
		c.pacer.Share(opts.SharedPace)
	}
	if c.rng == nil {
		c.rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	c.hc = httpClient(opts.HTTPClient, c.pacer.Parallelism())
	if c.log != nil {
		c.log.Debug("api client",
			"base_url", r.text(base), "base_url_v2", r.text(baseV2), "api_key", textfmt.Redacted,
			"rate_limit", c.pacer.Rate(), "parallelism", c.pacer.Parallelism(),
			"timeout", c.timeout, "max_retries", c.maxRetries)
	}
	return c, nil
}

// checkKey refuses an API key that cannot be sent in a header: empty, or
// with a line break or another control character (the HTTP client refuses
// it, and the refusal looked like a network error retried 7 times). The
// error says where, never what.
func checkKey(key string) error {
	if key == "" {
		return errors.New("api: no API key")
	}
	if strings.ContainsAny(key, "\r\n") {
		return errors.New("api: the API key contains a line break")
	}
	for i := 0; i < len(key); i++ {
		if b := key[i]; (b < 0x20 && b != '\t') || b == 0x7f {
			return fmt.Errorf("api: the API key contains a control character (byte 0x%02x, character %d of %d); set it again without it", b, i+1, len(key))
		}
	}
	return nil
}

// httpClient is a copy of hc (or of a client of its own when hc is nil)
// that never follows a redirect. Its own keeps a warm connection for each
// of parallelism calls in flight: a new one costs handshakes, which delay
// that call's arrival and squeeze the gap to the next one.
func httpClient(hc *http.Client, parallelism int) *http.Client {
	if hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConnsPerHost = max(parallelism, t.MaxIdleConnsPerHost)
		hc = &http.Client{Transport: t}
	}
	copied := *hc
	copied.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &copied
}

func checkBase(name, raw string, r redactor) (string, error) {
	if raw == "" {
		return "", nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("api: %s %q is not an http(s) URL", name, r.text(raw))
	}
	if u.User != nil {
		return "", fmt.Errorf("api: %s must not carry user information", name)
	}
	return strings.TrimRight(raw, "/"), nil
}

// Pacer returns the pacer the client's calls go through.
func (c *Client) Pacer() *Pacer { return c.pacer }

// Fields reads the searchable-field list: GET {base_url}/v1/scrap/fields.
func (c *Client) Fields(ctx context.Context) ([]Field, error) {
	var out []Field
	check := func([]byte) *Error { return checkFields(out) }
	if err := c.call(ctx, OpFields, Gen1, http.MethodGet, "/v1/scrap/fields", nil, &out, check); err != nil {
		return nil, err
	}
	if out == nil {
		out = []Field{}
	}
	return out, nil
}

// Search runs one search: POST {base_url}/v1/scrap (generation 1) or
// POST {base_url_v2}/search (generation 2). A raw search (generation 1 only)
// keeps the raw items whole and derives the leads from them.
func (c *Client) Search(ctx context.Context, gen Generation, req SearchRequest) (*SearchResult, error) {
	if !hasString(req.Params, "keywords") && !hasString(req.Params, "searchUrl") {
		return nil, &Error{Op: OpSearch, Gen: gen, Kind: KindInvalid, Message: "a search needs keywords or searchUrl"}
	}
	if _, ok := req.Params["raw"]; ok {
		return nil, &Error{Op: OpSearch, Gen: gen, Kind: KindConfig, Message: "raw is set with SearchRequest.Raw, not as a parameter"}
	}
	path := "/v1/scrap"
	if gen == Gen2 {
		if req.Raw {
			return nil, &Error{Op: OpSearch, Gen: gen, Kind: KindConfig, Message: "raw results exist only in generation 1"}
		}
		path = "/search"
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, &Error{Op: OpSearch, Gen: gen, Kind: KindConfig, Message: "cannot encode the request", Err: err}
	}
	res := &SearchResult{Leads: []person.Lead{}}
	if req.Raw {
		var raw []RawLead
		check := func([]byte) *Error {
			leads := make([]person.Lead, len(raw))
			for i, r := range raw {
				leads[i] = r.Lead()
			}
			return checkLeads(leads)
		}
		if err := c.call(ctx, OpSearch, gen, http.MethodPost, path, body, &raw, check); err != nil {
			return nil, err
		}
		res.Raw = make([]RawLead, 0, len(raw))
		for _, r := range raw {
			res.Raw = append(res.Raw, r)
			res.Leads = append(res.Leads, r.Lead())
		}
		return res, nil
	}
	check := func([]byte) *Error { return checkLeads(res.Leads) }
	if err := c.call(ctx, OpSearch, gen, http.MethodPost, path, body, &res.Leads, check); err != nil {
		return nil, err
	}
	if res.Leads == nil {
		res.Leads = []person.Lead{}
	}
	return res, nil
}

// Page reads one profile: POST {base_url}/v1/scrap/page (generation 1) or
// POST {base_url_v2}/scrap (generation 2).
func (c *Client) Page(ctx context.Context, gen Generation, req PageRequest) (*person.Profile, error) {
	if err := checkPageRequest(OpPage, gen, req); err != nil {
		return nil, err
	}
	path := "/v1/scrap/page"
	if gen == Gen2 {
		path = "/scrap"
	}
	body, _ := json.Marshal(req)
	var out person.Profile
	if err := c.call(ctx, OpPage, gen, http.MethodPost, path, body, &out, checkProfile(req)); err != nil {
		return nil, withPage(err, req)
	}
	return &out, nil
}

// Enrich enriches one profile: POST {base_url}/v1/scrap/enrich. It spends a
// credit, so it is retried only when the request certainly was not processed.
func (c *Client) Enrich(ctx context.Context, req PageRequest) (*person.EnrichedProfile, error) {
	if err := checkPageRequest(OpEnrich, Gen1, req); err != nil {
		return nil, err
	}
	body, _ := json.Marshal(req)
	var out person.EnrichedProfile
	if err := c.call(ctx, OpEnrich, Gen1, http.MethodPost, "/v1/scrap/enrich", body, &out, checkEnriched(req)); err != nil {
		return nil, withPage(err, req)
	}
	return &out, nil
}

// Billing reads the remaining requests of the month: GET {base_url}/v1/billing.
func (c *Client) Billing(ctx context.Context) (*Usage, error) {
	var out Usage
	if err := c.call(ctx, OpBilling, Gen1, http.MethodGet, "/v1/billing", nil, &out, checkUsage); err != nil {
		return nil, err
	}
	return &out, nil
}

// withPage names the page name req asked for in err, so that a refusal of
// it speaks of the page name (Error.Hint).
func withPage(err error, req PageRequest) error {
	if e, ok := err.(*Error); ok {
		e.Page = askedPage(req)
	}
	return err
}

func checkPageRequest(op string, gen Generation, req PageRequest) error {
	switch {
	case req.PageName == "" && req.ProfileURL == "":
		return &Error{Op: op, Gen: gen, Kind: KindInvalid, Message: "a page name or a profile URL is needed"}
	case req.PageName != "" && req.ProfileURL != "":
		return &Error{Op: op, Gen: gen, Kind: KindInvalid, Message: "give a page name or a profile URL, not both"}
	}
	return nil
}

func hasString(m map[string]any, k string) bool {
	s, ok := m[k].(string)
	return ok && strings.TrimSpace(s) != ""
}

type startHookKey struct{}

// WithStartHook returns a context that makes the client call hook, in the
// caller's goroutine, each time an attempt of the call leaves the pacer and
// is about to be sent: a caller can tell time spent waiting for the rate
// limit from time spent by the service, and note that the call is going out
// (a journal line). An error from hook stops that attempt: it is not sent,
// and the call returns an *Error of KindNotSent wrapping it.
func WithStartHook(ctx context.Context, hook func() error) context.Context {
	return context.WithValue(ctx, startHookKey{}, hook)
}

type sendGateKey struct{}

// WithSendGate returns a context under which a call is no longer sent once
// gate is closed: a call still waiting for the rate limit (or to retry)
// returns an *Error of KindNotSent without reaching the service, while a
// request already sent goes on to its answer. It is how a run stops
// spending at once without abandoning answers that are paid for.
func WithSendGate(ctx context.Context, gate <-chan struct{}) context.Context {
	return context.WithValue(ctx, sendGateKey{}, gate)
}

// gateClosed reports whether the send gate of ctx (if any) is closed.
func gateClosed(gate <-chan struct{}) bool {
	if gate == nil {
		return false
	}
	select {
	case <-gate:
		return true
	default:
		return false
	}
}

// Started calls the start hook of ctx, if any (see WithStartHook), and
// returns its error. Client calls it for every attempt it sends; another
// implementation of Service (a test double) calls it when it begins a call,
// so that its callers see calls start as they would with the real client,
// and does not make the call when it returns an error.
func Started(ctx context.Context) error {
	if h, ok := ctx.Value(startHookKey{}).(func() error); ok {
		return h()
	}
	return nil
}

// call makes one call with pacing and retries and decodes a 2xx answer into
// out, which check then validates (see validate.go).
func (c *Client) call(ctx context.Context, op string, gen Generation, method, path string, body []byte, out any, check checker) error {
	u, err := c.endpoint(op, gen, path)
	if err != nil {
		return err
	}
	gate, _ := ctx.Value(sendGateKey{}).(<-chan struct{})
	waitCtx, stop := gateContext(ctx, gate)
	defer stop()
	var last *Error
	announced := false // the wait after a 429 was already reported
	for attempt := 1; ; attempt++ {
		if d := c.pacer.Delay(); d >= time.Second && !announced {
			c.obs.Waiting(op, d, "rate limit")
		}
		announced = false
		tk, err := c.pacer.Take(waitCtx)
		if err != nil {
			if gateClosed(gate) && ctx.Err() == nil {
				return stoppedBeforeSend(op, gen, attempt, last)
			}
			return &Error{Op: op, Gen: gen, Kind: KindCanceled, Attempts: attempt - 1, Message: "canceled while waiting for the rate limit", Err: err}
		}
		if gateClosed(gate) {
			tk.Release()
			return stoppedBeforeSend(op, gen, attempt, last)
		}
		// The start hook may wait (for the state to be written): no other
		// call starts until this one departs, and the next one a gap
		// after it, so a stall never sends the calls behind it together.
		if err := Started(ctx); err != nil {
			tk.Release()
			return &Error{Op: op, Gen: gen, Kind: KindNotSent, Attempts: attempt - 1, Err: err, sent: last != nil && last.MaybeCharged()}
		}
		tk.Depart()
		e := c.send(ctx, op, gen, method, path, u, body, out, check, attempt, tk.Release)
		if e == nil {
			return nil
		}
		if !shouldRetry(op, attempt, c.maxRetries, e) || ctx.Err() != nil {
			return e
		}
		last = e
		wait := c.retryWait(attempt, e)
		if e.Kind == KindRateLimited {
			// Every caller of the key pauses, not only this one.
			c.pacer.Throttle(wait)
			c.waiting(ctx, op, wait, "rate limited (429)")
			announced = true
			continue
		}
		c.waiting(ctx, op, wait, "retry after "+e.Kind.String())
		select {
		case <-waitCtx.Done():
			if gateClosed(gate) && ctx.Err() == nil {
				return stoppedBeforeSend(op, gen, attempt+1, e)
			}
			return &Error{Op: op, Gen: gen, Kind: KindCanceled, Attempts: attempt, Message: "canceled while waiting to retry after: " + e.Error(), Err: ctx.Err(), sent: e.MaybeCharged()}
		case <-c.clock.After(wait):
		}
	}
}

// endpoint is the URL of path in the service of gen, or a configuration
// error when its base URL is not set.
func (c *Client) endpoint(op string, gen Generation, path string) (string, error) {
	base, name := c.base, "api.base_url"
	if gen == Gen2 {
		base, name = c.baseV2, "api.base_url_v2"
	}
	if base == "" {
		return "", &Error{Op: op, Gen: gen, Kind: KindConfig, Message: fmt.Sprintf("%s is not set; %s needs it", name, gen)}
	}
	return base + path, nil
}

// gateContext is ctx, also done when gate (if any) closes: it ends a wait
// for the rate limit or a retry, never a request already sent. stop frees
// it.
func gateContext(ctx context.Context, gate <-chan struct{}) (waitCtx context.Context, stop func()) {
	if gate == nil {
		return ctx, func() {}
	}
	waitCtx, cancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-gate:
			cancel()
		case <-waitCtx.Done():
		}
	}()
	return waitCtx, cancel
}

// stoppedBeforeSend is the error of a call the run stopped before its
// attempt-th attempt was sent; last is the attempt before, if any. The
// kind already says "not sent": the message says why.
func stoppedBeforeSend(op string, gen Generation, attempt int, last *Error) error {
	e := &Error{Op: op, Gen: gen, Kind: KindNotSent, Attempts: attempt - 1, Message: "the run is stopping"}
	if last != nil {
		e.Message = "the run is stopping, so it was not tried again; last attempt: " + last.Error()
		e.sent = last.MaybeCharged()
	}
	return e
}

// send makes the attempt-th attempt of a call, once the pacer let it go,
// gives the pacer's place back (release) as soon as the answer is in, and
// reports the attempt to the observer and the log.
func (c *Client) send(ctx context.Context, op string, gen Generation, method, path, u string, body []byte, out any, check checker, attempt int, release func()) *Error {
	c.obs.CallStart(op, attempt)
	start := c.clock.Now()
	e := c.attempt(ctx, method, u, body, out, check)
	release()
	d := c.clock.Now().Sub(start)
	status := http.StatusOK
	if e != nil {
		e.Op, e.Gen, e.Attempts = op, gen, attempt
		status = e.Status
		if e.Kind == KindUnexpected && e.Status == http.StatusNotFound {
			e.Kind = kindFor(op, e.Status, e.jsonError)
		}
	}
	if e == nil || e.Kind != KindRateLimited {
		c.pacer.Succeeded()
	}
	c.logCall(op, gen, method, path, attempt, status, d, e)
	if e == nil {
		c.obs.CallDone(op, status, d, nil)
		return nil
	}
	c.obs.CallDone(op, status, d, e)
	return e
}

// retryWait is how long to wait before trying again after the attempt-th
// attempt failed with e: what the service asked (Retry-After), or the
// backoff, scaled.
func (c *Client) retryWait(attempt int, e *Error) time.Duration {
	c.rngMu.Lock()
	wait := backoff(attempt, e.RetryAfter, c.rng)
	c.rngMu.Unlock()
	if e.RetryAfter == 0 {
		wait = time.Duration(float64(wait) * c.backoffScale)
	}
	return wait
}

// attempt sends one request and decodes the answer. The returned error has
// Kind, Status, Message, RetryAfter, Err and sent filled in.
func (c *Client) attempt(ctx context.Context, method, u string, body []byte, out any, check checker) *Error {
	actx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	// The pacer spaces the next start from the moment this request is
	// written when that is later than its start (a new connection).
	trace := &httptrace.ClientTrace{WroteHeaders: c.pacer.Sent}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(actx, trace), method, u, rd)
	if err != nil {
		return &Error{Kind: KindConfig, Message: "cannot build the request", Err: c.redact.err(err)}
	}
	req.Header.Set("X-Api-Key", c.key)
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return c.transportError(ctx, actx, err, !notSent(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return c.transportError(ctx, actx, err, true)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := &Error{
			Kind:      kindForStatus(resp.StatusCode),
			Status:    resp.StatusCode,
			Message:   redactedMessage(c.redact, data, resp.Header.Get("Content-Type")),
			jsonError: jsonErrorForm(data, resp.Header.Get("Content-Type")),
			sent:      true,
		}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			e.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), c.clock.Now())
		}
		if e.Kind == KindUnexpected && resp.StatusCode >= 300 && resp.StatusCode < 400 {
			e.Message = "redirect to " + c.redact.text(resp.Header.Get("Location")) + " not followed"
		}
		return e
	}
	if len(data) > maxBody {
		return &Error{Kind: KindDecode, Status: resp.StatusCode, Message: fmt.Sprintf("answer larger than %d MiB", maxBody>>20), sent: true}
	}
	if e := emptyAnswer(data); e != nil {
		// An empty or null body is no answer: a search without matches
		// is an empty list, and every other answer is an object.
		e.Status, e.sent = resp.StatusCode, true
		return e
	}
	// A retry decodes into a clean value: nothing of an earlier, refused
	// answer may survive into this one.
	reflect.ValueOf(out).Elem().SetZero()
	if err := json.Unmarshal(data, out); err != nil {
		// Redact before cutting: a key cut in half would not be found.
		msg := decodeMessage([]byte(c.redact.text(string(data))), resp.Header.Get("Content-Type"), err)
		return &Error{Kind: KindDecode, Status: resp.StatusCode, Message: msg, Err: c.redact.err(err), sent: true}
	}
	if check != nil {
		if e := check(data); e != nil {
			e.Status, e.sent = resp.StatusCode, true
			e.Message = c.redact.text(e.Message)
			return e
		}
	}
	return nil
}

// transportError classifies a failure to get or read an answer.
func (c *Client) transportError(ctx, actx context.Context, err error, sent bool) *Error {
	err = c.redact.err(err)
	switch {
	case ctx.Err() != nil:
		return &Error{Kind: KindCanceled, Message: "interrupted", Err: ctx.Err(), sent: sent}
	case actx.Err() != nil || isTimeout(err):
		return &Error{Kind: KindTimeout, Message: fmt.Sprintf("no complete answer within %s", c.timeout), Err: err, sent: sent, timeout: c.timeout}
	}
	return &Error{Kind: KindNetwork, Err: err, sent: sent}
}

var (
	htmlTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
	spaces    = regexp.MustCompile(`\s+`)
)

// looksHTML reports whether an answer is a web page rather than JSON.
func looksHTML(data []byte, contentType string) bool {
	if strings.Contains(strings.ToLower(contentType), "html") {
		return true
	}
	t := bytes.TrimSpace(data)
	return len(t) > 0 && t[0] == '<'
}

// jsonErrorForm reports whether an error answer is in the service's JSON
// error form: a JSON object with a string message (or error), not a web
// page. The spec does not give the form; the sandbox answers
// {"message": "..."}. A 404 in this form comes from the service (Error
// KindNotFound), one that is a web page from whatever else answers at a
// wrong base URL.
func jsonErrorForm(data []byte, contentType string) bool {
	if looksHTML(data, contentType) {
		return false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(data), &obj) != nil {
		return false
	}
	for _, k := range []string{"message", "error"} {
		var s string
		if json.Unmarshal(obj[k], &s) == nil && strings.TrimSpace(s) != "" {
			return true
		}
	}
	return false
}

// serviceMessage extracts a short message from an error answer. The format
// of the service's error body is not specified: a JSON object with a
// message-like field, a JSON string, an HTML page (its title) or text.
func serviceMessage(data []byte, contentType string) string {
	t := bytes.TrimSpace(data)
	if len(t) == 0 {
		return ""
	}
	if looksHTML(t, contentType) {
		if m := htmlTitle.FindSubmatch(t); m != nil {
			return shorten("an HTML page: " + html.UnescapeString(string(m[1])))
		}
		return "an HTML page"
	}
	var obj map[string]any
	if json.Unmarshal(t, &obj) == nil {
		for _, k := range []string{"message", "error", "detail", "msg", "errors"} {
			switch v := obj[k].(type) {
			case string:
				return shorten(v)
			case nil:
			default:
				b, _ := json.Marshal(v)
				return shorten(string(b))
			}
		}
		return shorten(string(t))
	}
	var s string
	if json.Unmarshal(t, &s) == nil {
		return shorten(s)
	}
	return shorten(string(t))
}

// redactedMessage is serviceMessage of an answer with the key removed first,
// so that shortening cannot leave part of it.
func redactedMessage(r redactor, data []byte, contentType string) string {
	return serviceMessage([]byte(r.text(string(data))), contentType)
}

// decodeMessage describes why a 2xx answer could not be decoded.
func decodeMessage(data []byte, contentType string, err error) string {
	switch {
	case looksHTML(data, contentType):
		if m := htmlTitle.FindSubmatch(data); m != nil {
			return "expected JSON, got an HTML page: " + shorten(html.UnescapeString(string(m[1])))
		}
		return "expected JSON, got an HTML page"
	case errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected end of JSON input"):
		return fmt.Sprintf("truncated JSON (%d bytes)", len(data))
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("unexpected JSON shape: %s where %s was expected", te.Value, te.Type)
	}
	return "invalid JSON"
}

// shorten collapses white space and cuts text to about 200 characters.
func shorten(s string) string {
	s = strings.TrimSpace(spaces.ReplaceAllString(s, " "))
	const limit = 200
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return string(r[:limit]) + "…"
}

func (c *Client) logCall(op string, gen Generation, method, path string, attempt, status int, d time.Duration, e *Error) {
	if c.log == nil {
		return
	}
	attrs := []any{"op", op, "gen", int(gen), "method", method, "path", path, "attempt", attempt, "status", status, "duration", d.Round(time.Millisecond)}
	if e != nil {
		attrs = append(attrs, "error", e.Error())
	}
	c.log.Debug("api call", attrs...)
}

func (c *Client) logWait(op string, d time.Duration, reason string) {
	if c.log == nil {
		return
	}
	c.log.Debug("api wait", "op", op, "wait", d.Round(time.Millisecond), "reason", reason)
}
