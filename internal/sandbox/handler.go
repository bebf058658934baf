package sandbox

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"time"
)

// maxBody bounds a request body; larger ones are answered 400.
const maxBody = 1 << 20

// route is one operation's method and path.
type route struct {
	method string
	op     Op
}

var routes = map[string]route{
	"/v1/scrap/fields": {http.MethodGet, OpFields},
	"/v1/scrap":        {http.MethodPost, OpSearch},
	"/v1/scrap/page":   {http.MethodPost, OpPage},
	"/v1/scrap/enrich": {http.MethodPost, OpEnrich},
	"/v1/billing":      {http.MethodGet, OpBilling},
	"/search":          {http.MethodPost, OpSearchV2},
	"/scrap":           {http.MethodPost, OpPageV2},
}

// reply is an answer before it is written: the same one serves ServeHTTP
// and the in-process Transport.
type reply struct {
	status    int
	header    http.Header
	body      []byte
	drop      bool  // close the connection without answering
	abandoned error // the client went away (the sleep's error); nothing to write
}

// errorBody is the JSON body of every error answer. The spec gives no error
// format; {"message": "..."} is the sandbox's choice.
type errorBody struct {
	Message string `json:"message"`
}

func jsonReply(status int, v any) reply {
	b, err := json.Marshal(v)
	if err != nil { // cannot happen with the sandbox's own types
		return errorReply(http.StatusInternalServerError, "encoding the answer: %v", err)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json; charset=utf-8")
	return reply{status: status, header: h, body: b}
}

func errorReply(status int, format string, args ...any) reply {
	return jsonReply(status, errorBody{Message: fmt.Sprintf(format, args...)})
}

// htmlPage is what a proxy in front of the service answers for the HTML fault.
const htmlPage = `<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title></head>
<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>
`

// ServeHTTP answers one request. A dropped connection (the Drop fault)
// aborts the handler with http.ErrAbortHandler, which makes net/http close
// the connection without an answer.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	rep := s.handle(r.Context(), r.Method, r.URL.Path, r.Header, body, err)
	switch {
	case rep.abandoned != nil:
		return
	case rep.drop:
		panic(http.ErrAbortHandler)
	}
	for k, v := range rep.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(rep.body)))
	w.WriteHeader(rep.status)
	_, _ = w.Write(rep.body)
}

// Transport returns an http.RoundTripper that calls the sandbox in
// process, without a listener. Any host is accepted; the path selects the
// operation. A dropped connection comes back as a *net.OpError wrapping
// ECONNRESET, as a real reset would; a call whose context ends during the
// latency returns the context's error.
func (s *Server) Transport() http.RoundTripper { return transport{s} }

type transport struct{ s *Server }

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var body []byte
	var readErr error
	if req.Body != nil {
		body, readErr = io.ReadAll(io.LimitReader(req.Body, maxBody+1))
		req.Body.Close()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep := t.s.handle(ctx, req.Method, req.URL.Path, req.Header, body, readErr)
	switch {
	case rep.abandoned != nil:
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, rep.abandoned
	case rep.drop:
		return nil, &net.OpError{Op: "read", Net: "tcp",
			Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 443},
			Err:  os.NewSyscallError("read", syscall.ECONNRESET)}
	}
	h := rep.header.Clone()
	h.Set("Content-Length", strconv.Itoa(len(rep.body)))
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", rep.status, http.StatusText(rep.status)),
		StatusCode:    rep.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(rep.body)),
		ContentLength: int64(len(rep.body)),
		Request:       req,
	}, nil
}

// handle runs one call through the rules, the faults and the operation.
func (s *Server) handle(ctx context.Context, method, path string, h http.Header, body []byte, readErr error) reply {
	start := s.opts.Now()
	s.mu.Lock()
	s.stats.Calls++
	s.mu.Unlock()

	rt, refused := s.route(method, path, h)
	if refused != nil {
		return s.finish(*refused)
	}
	a, refused := s.admit(rt.op, start)
	if refused != nil {
		return s.finish(*refused)
	}
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()

	switch a.fault {
	case FaultStatus500:
		s.countFault(a.fault)
		return s.finish(errorReply(http.StatusInternalServerError, "internal server error"))
	case FaultHTML:
		s.countFault(a.fault)
		hdr := http.Header{}
		hdr.Set("Content-Type", "text/html; charset=utf-8")
		return s.finish(reply{status: a.faults.HTMLStatus, header: hdr, body: []byte(htmlPage)})
	}

	var rep reply
	if readErr != nil {
		rep = errorReply(http.StatusBadRequest, "could not read the request body")
	} else if len(body) > maxBody {
		rep = errorReply(http.StatusBadRequest, "request body larger than %d bytes", maxBody)
	} else {
		rep = s.operate(rt.op, body, start, a.n)
	}

	// Latency comes after the work: a client that gives up meanwhile has
	// still been served (and charged), as with the real service.
	if d := s.latency(rt.op, a); d > 0 || ctx.Err() != nil {
		if err := s.opts.Sleep(ctx, d); err != nil {
			s.mu.Lock()
			s.stats.Abandoned++
			s.mu.Unlock()
			return reply{abandoned: err}
		}
	}

	rep = s.badAnswer(a.faults, rt.op, a.n, rep)
	if rep.status == http.StatusOK {
		switch a.fault {
		case FaultDrop:
			s.countFault(a.fault)
			return reply{drop: true}
		case FaultTruncate:
			s.countFault(a.fault)
			rep.body = rep.body[:len(rep.body)/2]
		}
	}
	return s.finish(rep)
}

// route finds the operation at path, or the refusal of a call that names
// none, uses the wrong method or has no valid key. The key is compared in
// constant time and never repeated in an answer.
func (s *Server) route(method, path string, h http.Header) (route, *reply) {
	rt, ok := routes[path]
	if !ok {
		rep := errorReply(http.StatusNotFound, "no operation at %s", path)
		return rt, &rep
	}
	if method != rt.method {
		rep := errorReply(http.StatusMethodNotAllowed, "%s takes %s, not %s", path, rt.method, method)
		rep.header.Set("Allow", rt.method)
		return rt, &rep
	}
	switch key := h.Get("X-Api-Key"); {
	case key == "":
		rep := errorReply(http.StatusForbidden, "missing X-Api-Key header")
		return rt, &rep
	case subtle.ConstantTimeCompare([]byte(key), []byte(s.key)) != 1:
		rep := errorReply(http.StatusForbidden, "invalid API key")
		return rt, &rep
	}
	return rt, nil
}

// admission is an accepted call: its number and the faults it meets.
type admission struct {
	n      uint64
	faults Faults
	fault  Fault
	slow   bool
}

// admit lets a call of op in, or refuses it (revoked key, 429 storm, rate
// window); an accepted call counts, and is in flight until the caller
// lowers s.inFlight.
func (s *Server) admit(op Op, start time.Time) (admission, *reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faults
	if f.RevokeKeyAfter > 0 && s.sinceSet >= f.RevokeKeyAfter {
		s.stats.Faults[FaultRevoked]++
		rep := errorReply(http.StatusForbidden, "API key revoked")
		return admission{}, &rep
	}
	if s.storm > 0 {
		s.storm--
		s.stats.Faults[FaultStorm429]++
		rep := s.tooMany(f)
		return admission{}, &rep
	}
	if s.limit > 0 {
		cut := start.Add(-s.window)
		keep := s.recent[:0]
		for _, t := range s.recent {
			if t.After(cut) {
				keep = append(keep, t)
			}
		}
		s.recent = keep
		if len(s.recent) >= s.limit {
			rep := s.tooMany(f)
			return admission{}, &rep
		}
		s.recent = append(s.recent, start)
	}
	s.seq++
	n := s.seq
	s.sinceSet++
	s.stats.Accepted++
	s.stats.ByOp[op]++
	s.stats.Starts = append(s.stats.Starts, start)
	s.inFlight++
	s.stats.MaxInFlight = max(s.stats.MaxInFlight, s.inFlight)
	return admission{
		n:      n,
		faults: f,
		fault:  chooseFault(f, n),
		slow:   f.Slow > 0 && unit(f.Seed, n, saltSlow) < f.Slow,
	}, nil
}

// latency is how long the answer to call a of op takes: the operation's
// latency range, drawn by the call's number, plus the slow fault's delay.
func (s *Server) latency(op Op, a admission) time.Duration {
	lat := s.opts.ReadLatency
	if op == OpSearch || op == OpSearchV2 {
		lat = s.opts.SearchLatency
	}
	d := lat[0]
	if lat[1] > lat[0] {
		d += time.Duration(unit(s.opts.Seed, a.n, saltLatency) * float64(lat[1]-lat[0]))
	}
	if a.slow {
		s.countFault(FaultSlow)
		d += a.faults.SlowBy
	}
	return d
}

func (s *Server) tooMany(f Faults) reply {
	rep := errorReply(http.StatusTooManyRequests, "rate limit exceeded: at most %s", s.rateText())
	if f.RetryAfter != "" {
		rep.header.Set("Retry-After", f.RetryAfter)
	}
	return rep
}

func (s *Server) rateText() string {
	if s.limit == 1 && s.window == time.Second {
		return "1 call per second"
	}
	return fmt.Sprintf("%d call(s) per %s", s.limit, s.window)
}

func (s *Server) countFault(f Fault) {
	s.mu.Lock()
	s.stats.Faults[f]++
	s.mu.Unlock()
}

// finish records the answer's status.
func (s *Server) finish(rep reply) reply {
	s.mu.Lock()
	s.stats.Status[rep.status]++
	switch rep.status {
	case http.StatusTooManyRequests:
		s.stats.RateLimited++
	case http.StatusForbidden:
		s.stats.Forbidden++
	}
	s.mu.Unlock()
	return rep
}

// Salts keep the pseudo-random draws of one call independent.
const (
	saltFault = iota + 1
	saltSlow
	saltLatency
	saltRequestID
)

// chooseFault picks the exclusive fault of call n, or 0.
func chooseFault(f Faults, n uint64) Fault {
	if f.Status500+f.HTML+f.Drop+f.Truncate <= 0 {
		return 0
	}
	u := unit(f.Seed, n, saltFault)
	for _, c := range []struct {
		share float64
		fault Fault
	}{{f.Status500, FaultStatus500}, {f.HTML, FaultHTML}, {f.Drop, FaultDrop}, {f.Truncate, FaultTruncate}} {
		if u < c.share {
			return c.fault
		}
		u -= c.share
	}
	return 0
}

// mix is splitmix64: a good 64-bit hash of seed, call number and salt.
func mix(seed int64, n uint64, salt uint64) uint64 {
	z := uint64(seed) ^ n*0x9e3779b97f4a7c15 ^ salt*0xbf58476d1ce4e5b9
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// unit maps mix to [0, 1).
func unit(seed int64, n uint64, salt uint64) float64 {
	return float64(mix(seed, n, salt)>>11) / (1 << 53)
}
