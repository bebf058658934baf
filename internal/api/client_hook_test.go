package api

import (
	"context"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api/apitest"
)

func TestStartHookRunsForEveryAttemptAfterThePacer(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Write([]byte(`{"Remaining requests this month": 5, "Invoicing start date": "2024-01-01"}`))
	}))
	defer srv.Close()
	c, err := New(Options{BaseURL: srv.URL, Key: "k", RateLimit: 1000, Pacer: NewPacer(1000, 1, nil)})
	if err != nil {
		t.Fatal(err)
	}
	hooks := 0
	if _, err := c.Billing(WithStartHook(context.Background(), func() error { hooks++; return nil })); err != nil {
		t.Fatal(err)
	}
	if hooks != 2 {
		t.Errorf("hook ran %d times for 2 attempts", hooks)
	}
}

// TestStalledStartHookSendsNoBurst is a state outage at the start hook:
// at 1 call/s the first call's hook waits (as the engine's waits for a
// result being written again and again while PostgreSQL is down) for 30
// seconds of the fake clock, with four more calls queued behind it. When
// the state comes back, the calls reach the service one gap apart, never
// together: before, each waiter took its token while the first was
// stalled, waited in its own hook, and all were sent at once.
func TestStalledStartHookSendsNoBurst(t *testing.T) {
	clock := apitest.NewFakeClock(t0)
	var mu sync.Mutex
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrivals = append(arrivals, clock.Now())
		mu.Unlock()
		w.Write([]byte(`{"Remaining requests this month": 5, "Invoicing start date": "2024-01-01"}`))
	}))
	defer srv.Close()
	c, err := New(Options{BaseURL: srv.URL, Key: "k", Clock: clock, Pacer: NewPacer(1, 8, clock)})
	if err != nil {
		t.Fatal(err)
	}
	stall := make(chan struct{})
	var hooks atomic.Int32
	ctx := WithStartHook(context.Background(), func() error {
		hooks.Add(1)
		<-stall // the state cannot be written until the outage ends
		return nil
	})
	const calls = 5
	var done atomic.Int32
	for range calls {
		go func() {
			defer done.Add(1)
			if _, err := c.Billing(ctx); err != nil {
				t.Error(err)
			}
		}()
	}
	waitFor(t, "the first call at its hook", func() bool { return hooks.Load() >= 1 })
	waitFor(t, "the others queued", func() bool { return c.pacer.queued() == calls-1 })
	for range 30 { // the outage: 30 s of the fake clock, a second at a time
		clock.Advance(time.Second)
		runtime.Gosched()
	}
	close(stall)
	// No deadline: calls that never end hang here until go test's
	// -timeout, which prints where each waits.
	for done.Load() < calls {
		mu.Lock()
		// Time moves on only once every call let go has arrived: the
		// network takes no time on the fake clock.
		settled := len(arrivals) == int(hooks.Load())
		mu.Unlock()
		if at, ok := clock.NextDeadline(); ok && settled {
			clock.Advance(at.Sub(clock.Now()))
		}
		runtime.Gosched()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(arrivals) != calls {
		t.Fatalf("%d calls arrived, want %d", len(arrivals), calls)
	}
	for i := 1; i < len(arrivals); i++ {
		if gap := arrivals[i].Sub(arrivals[i-1]); gap < time.Second {
			t.Errorf("calls %d and %d arrived %s apart at 1 call/s (arrivals %v)", i, i+1, gap, arrivals)
		}
	}
}
