package engine_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

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
