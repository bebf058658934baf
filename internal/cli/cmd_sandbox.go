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
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/views"
)

func newSandboxCmd(f *Factory) *cobra.Command {
	var fl arguments.SandboxFlags
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
  overfull=true             a search answers every match, past the network's
                            cap of 300 (leadsync keeps at most max_results)

Drift (--drift, --epoch) makes members change jobs over time: at each epoch
from 1 to --epoch, a share --drift of the members still public and in the
network moves (a new title and/or company, sometimes another city), leaves
the network or turns private, the same for the same seed. --drift 0 (the
default) is the population as generated. Start the sandbox again with a later
--epoch to see time pass. --private-positions makes a private profile answer
with its positions (never its description), as the spec allows, and private
members go on changing jobs.`,
		Example: `  leadsync sandbox
  leadsync sandbox --addr 127.0.0.1:9000 --latency 2s-10s
  leadsync sandbox --faults 500=0.05,drop=0.02,storm=3,retry-after=1
  leadsync sandbox --quota 20 --faults bad=0.2,bad-kind=other-person,quota-429=true
  leadsync sandbox --drift 0.15 --epoch 2
  leadsync sandbox --drift 0.3 --epoch 4 --private-positions`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseSandbox, func(cmd *cobra.Command, a *arguments.Sandbox) error {
		return runSandbox(cmd.Context(), f, a)
	})
	return cmd
}

// runSandbox serves the sandbox until ctx ends or an interrupt arrives.
func runSandbox(ctx context.Context, f *Factory, o *arguments.Sandbox) error {
	s := sandbox.New(sandbox.Options{
		Key: o.Key, Seed: o.Seed, People: o.People, RateLimit: o.Rate, Now: f.Now,
		SearchLatency: o.SearchLatency, ReadLatency: o.ReadLatency,
		Credits: sandboxCount(o.Credits), Quota: sandboxCount(o.Quota), Faults: o.Faults,
		Drift: o.Drift, Epoch: o.Epoch, PrivatePositions: o.PrivatePositions,
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
	view := views.NewSandbox(f.IO.Out, errOut)
	handler := recoverSandboxCalls(f, s, view)
	if !o.Quiet {
		handler = logSandboxCalls(s, view, f.Now)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return serveCtx },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	drift, epoch := s.Drift()
	_ = view.Started(views.SandboxStart{BaseURL: base, Key: o.Key, Members: len(s.Population()), Seed: o.Seed,
		Drift: drift, Epoch: epoch, Changes: len(s.Changes()), Rate: o.Rate, SearchLatency: o.SearchLatency,
		Credits: o.Credits, Quota: o.Quota})

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
	_ = view.Stopped(views.SandboxStats{Calls: stats.Calls, Accepted: stats.Accepted, RateLimited: stats.RateLimited,
		Forbidden: stats.Forbidden, CreditsSpent: stats.CreditsSpent, RequestsSpent: stats.RequestsSpent})
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

// logSandboxCalls writes one line per call: time, method, path, status, duration.
func logSandboxCalls(next http.Handler, view views.Sandbox, now func() time.Time) http.Handler {
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
			view.Call(start, r.Method, r.URL.Path, status, now().Sub(start))
			if p != nil {
				panic(p)
			}
		}()
		next.ServeHTTP(rec, r)
	})
}

// recoverSandboxCalls answers a call whose handler panics (a bug of the
// sandbox) with 500 and says so through view in one line naming the crash
// log that holds the stack, instead of net/http's stack trace on the
// screen; the sandbox serves on. http.ErrAbortHandler (a fault that drops
// the connection) goes on to net/http, which logs nothing for it.
func recoverSandboxCalls(f *Factory, next http.Handler, view views.Sandbox) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		defer func() {
			p := recover()
			if p == nil || p == http.ErrAbortHandler {
				if p != nil {
					panic(p)
				}
				return
			}
			value, log := crashReport(f, p)
			http.Error(rw, "an internal error of the leadsync sandbox", http.StatusInternalServerError)
			view.Crashed(r.Method, r.URL.Path, value, log)
		}()
		next.ServeHTTP(rw, r)
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
