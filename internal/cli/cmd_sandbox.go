package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// sandboxOptions are the flags of `leadsync sandbox`, parsed.
type sandboxOptions struct {
	Addr          string
	AllowRemote   bool
	Key           string
	Seed          int64
	People        int
	Rate          float64
	SearchLatency [2]time.Duration
	ReadLatency   [2]time.Duration
	Credits       int
	Quota         int
	Faults        sandbox.Faults
	Drift         float64
	Epoch         int
	Quiet         bool
}

// sandboxFlags are the raw flag values before parsing.
type sandboxFlags struct {
	opts                 sandboxOptions
	latency, readLatency string
	faults               string
}

func newSandboxCmd(f *Factory) *cobra.Command {
	var fl sandboxFlags
	cmd := &cobra.Command{
		Use:   "sandbox",
		Short: "Serve the built-in stand-in of the lead service over HTTP",
		Long: `Serve the sandbox: a stand-in of both generations of the lead service with a
synthetic population, the service's rules (key, rate limit, input checks) and
optional latency and faults. It prints the base URLs and the key it accepts;
point an api block at it to try leadsync without a real key. Ctrl-C stops it.

Faults (--faults) is a comma-separated list of NAME=VALUE:
  500=SHARE  html=SHARE  drop=SHARE  truncate=SHARE  slow=SHARE   shares in [0,1]
  slowby=DURATION  html-status=CODE  storm=N  revoke-after=N
  retry-after=SECONDS|HTTP-DATE  seed=N
  bad=SHARE bad-kind=KIND   a share of 200 answers replaced, after the work is
                            paid, by KIND: empty, null, {}, [null], no-id,
                            other-person
  quota-429=true            a used-up monthly quota is answered 429 (as some
                            deployments do) instead of 403

Drift (--drift, --epoch) makes members change jobs over time: at each epoch
from 1 to --epoch, a share --drift of the members still public and in the
network moves (a new title and/or company, sometimes another city), leaves
the network or turns private, the same for the same seed. --drift 0 (the
default) is the population as generated. Start the sandbox again with a later
--epoch to see time pass.`,
		Example: `  leadsync sandbox
  leadsync sandbox --addr 127.0.0.1:9000 --latency 2s-10s
  leadsync sandbox --faults 500=0.05,drop=0.02,storm=3,retry-after=1
  leadsync sandbox --quota 20 --faults bad=0.2,bad-kind=other-person,quota-429=true
  leadsync sandbox --drift 0.15 --epoch 2`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := fl.parse()
			if err != nil {
				return err
			}
			return runSandbox(cmd.Context(), f, opts)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&fl.opts.Addr, "addr", "127.0.0.1:8787", "listen on `HOST:PORT` (port 0 picks a free one)")
	fs.BoolVar(&fl.opts.AllowRemote, "allow-remote", false, "allow a non-loopback --addr (the key is well known: anyone who reaches the port can use it)")
	fs.StringVar(&fl.opts.Key, "key", sandbox.DefaultKey, "the API `KEY` to accept")
	fs.Int64Var(&fl.opts.Seed, "seed", 0, "population seed: the same seed gives the same members and results")
	fs.IntVar(&fl.opts.People, "people", sandbox.DefaultPeople, "population size")
	fs.Float64Var(&fl.opts.Rate, "rate", 1, "calls per second before 429 (a negative value disables the limit)")
	fs.StringVar(&fl.latency, "latency", "50ms-300ms", "search latency, `MIN-MAX` or one duration (0: none)")
	fs.StringVar(&fl.readLatency, "read-latency", "0", "latency of the other operations, `MIN-MAX` or one duration")
	fs.IntVar(&fl.opts.Credits, "credits", sandbox.DefaultCredits, "starting enrich credits")
	fs.IntVar(&fl.opts.Quota, "quota", sandbox.DefaultQuota, "starting remaining requests this month")
	fs.StringVar(&fl.faults, "faults", "", "faults to inject, `NAME=VALUE,...` (see above)")
	fs.Float64Var(&fl.opts.Drift, "drift", 0, "share of members who move at each epoch, from 0 to 1 (see above)")
	fs.IntVar(&fl.opts.Epoch, "epoch", 0, "the epoch the population is at: 0 is as generated, each one later has moved once more")
	fs.BoolVar(&fl.opts.Quiet, "quiet", false, "do not log each call to stderr")
	return cmd
}

// parse checks and converts the flag values.
func (fl *sandboxFlags) parse() (sandboxOptions, error) {
	o := fl.opts
	var err error
	if err = checkSandboxAddr(o.Addr, o.AllowRemote); err != nil {
		return o, err
	}
	if o.SearchLatency, err = parseSandboxLatency(fl.latency); err != nil {
		return o, fmt.Errorf("--latency: %w", err)
	}
	if o.ReadLatency, err = parseSandboxLatency(fl.readLatency); err != nil {
		return o, fmt.Errorf("--read-latency: %w", err)
	}
	if o.Faults, err = parseSandboxFaults(fl.faults); err != nil {
		return o, fmt.Errorf("--faults: %w", err)
	}
	switch {
	case o.People <= 0:
		return o, fmt.Errorf("--people %d: want a positive number of members", o.People)
	case o.Credits < 0:
		return o, fmt.Errorf("--credits %d: want 0 or more", o.Credits)
	case o.Quota < 0:
		return o, fmt.Errorf("--quota %d: want 0 or more", o.Quota)
	case o.Rate == 0:
		return o, fmt.Errorf("--rate 0: want calls per second above 0, or a negative value for no limit")
	case strings.TrimSpace(o.Key) == "":
		return o, fmt.Errorf("--key: want a non-empty key")
	}
	if err := sandbox.CheckDrift(o.Drift, o.Epoch); err != nil {
		return o, fmt.Errorf("--%s", err)
	}
	return o, nil
}

// checkSandboxAddr refuses addresses other machines can reach unless
// allowed: the sandbox's key is printed and well known.
func checkSandboxAddr(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: want HOST:PORT, e.g. 127.0.0.1:8787", addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("--addr %q: port %q is not a number from 0 to 65535", addr, port)
	}
	if allowRemote || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	what := host + " is not a loopback address"
	if host == "" {
		what = "an empty host listens on every interface"
	}
	return fmt.Errorf("--addr %q: %s; the sandbox accepts a well-known key, so it listens on 127.0.0.1, [::1] or localhost unless you add --allow-remote", addr, what)
}

// parseSandboxLatency reads "MIN-MAX" or one duration. "0" means none,
// which sandbox.Options spells as a negative max.
func parseSandboxLatency(s string) ([2]time.Duration, error) {
	lo, hi, isRange := strings.Cut(strings.TrimSpace(s), "-")
	if !isRange {
		hi = lo
	}
	from, err1 := time.ParseDuration(strings.TrimSpace(lo))
	to, err2 := time.ParseDuration(strings.TrimSpace(hi))
	switch {
	case lo == "0" && !isRange:
		return [2]time.Duration{-1, -1}, nil
	case err1 != nil || err2 != nil:
		return [2]time.Duration{}, fmt.Errorf("%q: want MIN-MAX or one duration, e.g. 2s-10s or 200ms", s)
	case from < 0 || to < from:
		return [2]time.Duration{}, fmt.Errorf("%q: want 0 <= MIN <= MAX", s)
	case to == 0:
		return [2]time.Duration{-1, -1}, nil
	}
	return [2]time.Duration{from, to}, nil
}

var sandboxFaultNames = "500, html, drop, truncate, slow, slowby, html-status, storm, revoke-after, retry-after, seed, bad, bad-kind, quota-429"

// parseSandboxFaults reads "NAME=VALUE,...". A part without "=" continues
// the previous value, so that an HTTP date (which has a comma) can follow
// retry-after.
func parseSandboxFaults(s string) (sandbox.Faults, error) {
	var f sandbox.Faults
	if strings.TrimSpace(s) == "" {
		return f, nil
	}
	var parts []string
	for _, p := range strings.Split(s, ",") {
		if !strings.Contains(p, "=") && len(parts) > 0 {
			parts[len(parts)-1] += "," + p
			continue
		}
		parts = append(parts, p)
	}
	for _, p := range parts {
		name, val, ok := strings.Cut(p, "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" {
			return f, fmt.Errorf("%q: want NAME=VALUE", p)
		}
		share := func(dst *float64) error {
			v, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return fmt.Errorf("%s=%s: want a share between 0 and 1, e.g. 0.05", name, val)
			}
			*dst = v
			return nil
		}
		count := func(dst *int) error {
			v, err := strconv.Atoi(val)
			if err != nil {
				return fmt.Errorf("%s=%s: want a whole number", name, val)
			}
			*dst = v
			return nil
		}
		var err error
		switch name {
		case "500":
			err = share(&f.Status500)
		case "html":
			err = share(&f.HTML)
		case "drop":
			err = share(&f.Drop)
		case "truncate":
			err = share(&f.Truncate)
		case "slow":
			err = share(&f.Slow)
		case "slowby":
			f.SlowBy, err = time.ParseDuration(val)
			if err != nil {
				err = fmt.Errorf("slowby=%s: want a duration, e.g. 40s", val)
			}
		case "html-status":
			err = count(&f.HTMLStatus)
		case "storm":
			err = count(&f.Storm429)
		case "revoke-after":
			err = count(&f.RevokeKeyAfter)
		case "retry-after":
			if _, e := strconv.Atoi(val); e != nil {
				if _, e := http.ParseTime(val); e != nil {
					err = fmt.Errorf("retry-after=%s: want seconds or an HTTP date (Wed, 21 Oct 2026 07:28:00 GMT)", val)
				}
			}
			f.RetryAfter = val
		case "bad":
			err = share(&f.BadShare)
		case "bad-kind":
			f.Bad = sandbox.BadNone
			for b := sandbox.BadEmpty; b <= sandbox.BadOtherPerson; b++ {
				if val == b.String() {
					f.Bad = b
				}
			}
			if f.Bad == sandbox.BadNone {
				err = fmt.Errorf("bad-kind=%s: want one of empty, null, {}, [null], no-id, other-person", val)
			}
		case "quota-429":
			f.QuotaAs429, err = strconv.ParseBool(val)
			if err != nil {
				err = fmt.Errorf("quota-429=%s: want true or false", val)
			}
		case "seed":
			f.Seed, err = strconv.ParseInt(val, 10, 64)
			if err != nil {
				err = fmt.Errorf("seed=%s: want a whole number", val)
			}
		default:
			err = fmt.Errorf("unknown fault %q; known: %s", name, sandboxFaultNames)
		}
		if err != nil {
			return f, err
		}
	}
	if (f.BadShare > 0) != (f.Bad != sandbox.BadNone) {
		return f, fmt.Errorf("bad=SHARE and bad-kind=KIND go together, e.g. bad=0.2,bad-kind=null")
	}
	return f, f.Validate()
}

// runSandbox serves the sandbox until ctx ends or an interrupt arrives.
func runSandbox(ctx context.Context, f *Factory, o sandboxOptions) error {
	s := sandbox.New(sandbox.Options{
		Key: o.Key, Seed: o.Seed, People: o.People, RateLimit: o.Rate, Now: f.Now,
		SearchLatency: o.SearchLatency, ReadLatency: o.ReadLatency,
		Credits: sandboxCount(o.Credits), Quota: sandboxCount(o.Quota), Faults: o.Faults,
		Drift: o.Drift, Epoch: o.Epoch,
	})
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		hint := ""
		if errors.Is(err, syscall.EADDRINUSE) {
			hint = "; another process uses that port: stop it, or pick another port (--addr 127.0.0.1:0 picks a free one)"
		}
		return fmt.Errorf("sandbox: cannot listen on %s: %w%s", o.Addr, err, hint)
	}
	base := "http://" + ln.Addr().String()

	// Handlers sleeping through a latency end when serveCtx does.
	serveCtx, stopServing := context.WithCancel(context.Background())
	defer stopServing()
	errOut := &sandboxSyncWriter{w: f.IO.ErrOut}
	var handler http.Handler = s
	if !o.Quiet {
		handler = logSandboxCalls(s, errOut, f.Now)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return serveCtx },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	fmt.Fprintf(f.IO.Out, `leadsync sandbox: both generations of the lead service on %s

  base_url    = %q   (first generation, /v1/...)
  base_url_v2 = %q   (second generation, /search and /scrap)
  API key       %s   (export LEADSYNC_API_KEY=%s)

%s (seed %d%s); rate limit %s; search latency %s; %s; %s left this month.
Press Ctrl-C to stop.
`, base, base, base, o.Key, o.Key, textfmt.Plural(len(s.Population()), "member"), o.Seed, sandboxDriftText(s), sandboxRateText(o.Rate), sandboxLatencyText(o.SearchLatency),
		textfmt.Plural(o.Credits, "credit"), textfmt.Plural(o.Quota, "request"))

	interrupt := f.Interrupt
	if interrupt == nil {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(ch)
		interrupt = ch
	}
	var serveErr error
	select {
	case <-ctx.Done():
	case <-interrupt:
	case serveErr = <-served:
	}
	stopServing()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		srv.Close()
	}
	stats := s.Stats()
	fmt.Fprintf(errOut, "sandbox stopped: %s (%s accepted, %s rate limited, %s forbidden), %s and %s spent\n",
		textfmt.Plural(stats.Calls, "call"), textfmt.Thousands(stats.Accepted), textfmt.Thousands(stats.RateLimited), textfmt.Thousands(stats.Forbidden),
		textfmt.Plural(stats.CreditsSpent, "credit"), textfmt.Plural(stats.RequestsSpent, "request"))
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("sandbox: %w", serveErr)
	}
	return nil
}

// sandboxCount maps a flag value to sandbox.Options, where 0 means the
// default and a negative value none.
func sandboxCount(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// sandboxDriftText is ", drift 0.15 at epoch 2: 1,234 changes", or ""
// without drift.
func sandboxDriftText(s *sandbox.Server) string {
	drift, epoch := s.Drift()
	if drift == 0 || epoch == 0 {
		return ""
	}
	return fmt.Sprintf(", drift %s at epoch %d: %s", strconv.FormatFloat(drift, 'f', -1, 64), epoch, textfmt.Plural(len(s.Changes()), "change"))
}

func sandboxRateText(r float64) string {
	if r < 0 {
		return "off"
	}
	return strconv.FormatFloat(r, 'f', -1, 64) + " call/s"
}

func sandboxLatencyText(l [2]time.Duration) string {
	switch {
	case l[1] <= 0:
		return "none"
	case l[0] == l[1]:
		return l[0].String()
	}
	return l[0].String() + "-" + l[1].String()
}

// logSandboxCalls writes one line per call: time, method, path, status, duration.
func logSandboxCalls(next http.Handler, w io.Writer, now func() time.Time) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		start := now()
		rec := &sandboxStatusRecorder{ResponseWriter: rw}
		defer func() {
			p := recover()
			status := strconv.Itoa(rec.status)
			switch {
			case p != nil:
				status = "dropped"
			case rec.status == 0:
				status = "no answer (client gone)"
			}
			fmt.Fprintf(w, "%s %-4s %-18s %s %s\n", start.Format("15:04:05.000"), r.Method, r.URL.Path, status, now().Sub(start).Round(time.Millisecond))
			if p != nil {
				panic(p)
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

type sandboxStatusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *sandboxStatusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

// sandboxSyncWriter serialises writes from concurrent handlers.
type sandboxSyncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *sandboxSyncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
