package engine_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
)

// Stopping stops the calls that wait for the rate limit too: with one call
// an hour allowed, the first search is sent and the others queue at the
// pacer; after the stop none of them reaches the service, the run ends at
// once, and nothing is recorded for them.
func TestStopAlsoStopsCallsQueuedAtThePacer(t *testing.T) {
	srv := sandbox.New(sandbox.Options{Seed: 1, RateLimit: -1, NoLatency: true})
	// arrived tells when the first call reached the service: an event, not
	// a polled counter.
	arrived := make(chan struct{}, 1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		srv.ServeHTTP(w, r)
	}))
	defer hs.Close()
	cfg := load(t, `
api {
  sandbox     = true
  parallelism = 3
  max_credits = 1000
}
search "a" {
  keywords = "CTO"
}
search "b" {
  keywords = "Engineer"
}
search "c" {
  keywords = "Manager"
}
`)
	st := state.New()
	p, diags := plan.Build(cfg, st, plan.Options{Now: t0, Offline: true})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	client, err := api.New(api.Options{BaseURL: hs.URL, Key: sandbox.DefaultKey, Pacer: api.NewPacer(1.0/3600, 3, nil)})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	j := &memJournal{}
	done := make(chan *engine.Summary)
	go func() {
		sum, _ := engine.Run(context.Background(), engine.Options{Config: cfg, Plan: p, State: st, Journal: j, Service: client, Stop: stop})
		done <- sum
	}()
	<-arrived
	close(stop)
	// The others wait an hour for the rate limit: a run that does not end
	// after the stop hangs here until go test's -timeout, which prints
	// where it waits.
	sum := <-done
	if n := srv.Stats().Accepted; n != 1 {
		t.Errorf("%d calls reached the service, want only the one sent before the stop", n)
	}
	if sum.Calls != 1 || len(sum.Failures) != 0 || sum.Stopped == "" {
		t.Errorf("summary: %d calls, failures %v, stopped %q; want 1 call, no failure, stopped", sum.Calls, sum.Failures, sum.Stopped)
	}
	if len(st.Failures) != 0 {
		t.Errorf("failures recorded for calls never made: %v", st.Failures)
	}
}

// pendingHeldJournal holds the first note of an enrichment about to be
// sent (as a journal that tries a failed write again while PostgreSQL is
// down) until release is closed.
type pendingHeldJournal struct {
	memJournal
	mu      sync.Mutex
	once    sync.Once
	held    chan struct{}
	release chan struct{}
}

func (j *pendingHeldJournal) Append(e *state.Event) error {
	if e.Kind == state.EventEnrichPending {
		first := false
		j.once.Do(func() { first = true })
		if first {
			close(j.held)
			<-j.release
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.memJournal.Append(e)
}

// TestStopSaidWhileAnEnrichmentIsNotedSendsItNot: a stop said while an
// enrichment's note (that it is about to be sent) is being written is
// kept: once the write succeeds, the enrichment is not sent. Before, the
// run said the calls not yet started are not sent, and the enrichment
// whose note had waited for the state went out all the same.
func TestStopSaidWhileAnEnrichmentIsNotedSendsItNot(t *testing.T) {
	cfg := load(t, basic)
	cfg.API.Parallelism = 1
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	j := &pendingHeldJournal{held: make(chan struct{}), release: make(chan struct{})}
	stop := make(chan struct{})
	done := make(chan *engine.Summary)
	go func() {
		sum, _ := engine.Run(context.Background(), engine.Options{Config: cfg, Plan: p, State: st, Journal: j, Service: svc,
			Now: func() time.Time { return t0 }, Stop: stop})
		done <- sum
	}()
	<-j.held
	close(stop)
	// The run's goroutine has taken the stop and waits for the note to be
	// written: its stack shows it in halt. (No deadline: a run that never
	// takes the stop hangs here until go test's -timeout, which prints
	// where it waits.)
	buf := make([]byte, 1<<20)
	for !strings.Contains(string(buf[:runtime.Stack(buf, true)]), "engine.(*runner).halt(") {
		runtime.Gosched()
	}
	close(j.release)
	sum := <-done
	if n := svc.count("enrich:"); n != 0 {
		t.Errorf("%d enrichments sent after the run said it stops", n)
	}
	if sum.Stopped == "" || sum.StoppedInFlight != 0 {
		t.Errorf("stopped %q with %d in flight; want stopped, none in flight", sum.Stopped, sum.StoppedInFlight)
	}
	if u := st.UnknownBy("enrich.all"); len(u) != 0 {
		t.Errorf("the enrichment never sent is left as an unknown outcome: %v", u)
	}
}
