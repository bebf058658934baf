package api

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api/apitest"
)

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

const ms = time.Millisecond

// step tries a start at t0+at and reports the outcome.
func step(p *Pacer, at time.Duration) (bool, time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.tryStart(t0.Add(at))
}

func TestPacerSchedule(t *testing.T) {
	clock := apitest.NewFakeClock(t0)
	p := NewPacer(1, 4, clock)
	type try struct {
		at       time.Duration
		ok       bool
		wait     time.Duration
		throttle time.Duration // Throttle(throttle) at `at` before trying, when > 0
		success  bool          // Succeeded() at `at` before trying
	}
	tries := []try{
		{at: 0, ok: true},
		{at: 500 * ms, ok: false, wait: 520 * ms}, // 1/rate plus the 2% margin
		{at: 1020 * ms, ok: true},
		{at: 2055 * ms, ok: true},                 // 15 ms late
		{at: 3059 * ms, ok: false, wait: 16 * ms}, // the late start is not caught up: the margin stays whole
		{at: 3075 * ms, ok: true},
		{at: 4195 * ms, ok: true},                 // 100 ms late
		{at: 5200 * ms, ok: false, wait: 15 * ms}, //
		{at: 5215 * ms, ok: true},
		{at: 60 * time.Second, ok: true},                        // idle: no burst built up
		{at: 60*time.Second + 990*ms, ok: false, wait: 30 * ms}, //
		{at: 61020 * ms, ok: true},
		{at: 61020 * ms, ok: false, wait: 5 * time.Second, throttle: 5 * time.Second}, // 429: pause
		{at: 66020 * ms, ok: true},                  // pause over
		{at: 67500 * ms, ok: false, wait: 560 * ms}, // slowed down: 2 × 1020 ms
		{at: 67500 * ms, ok: true, success: true},   // one success: back to 1020 ms
		{at: 68000 * ms, ok: false, wait: 520 * ms},
	}
	for i, tr := range tries {
		clock.Advance(t0.Add(tr.at).Sub(clock.Now()))
		if tr.throttle > 0 {
			p.Throttle(tr.throttle)
		}
		if tr.success {
			p.Succeeded()
		}
		ok, wait := step(p, tr.at)
		if ok != tr.ok || wait != tr.wait {
			t.Fatalf("step %d at %s: got (%v, %s), want (%v, %s)", i, tr.at, ok, wait, tr.ok, tr.wait)
		}
	}
}

// TestPacerSimulatedLateness runs a long schedule whose wake-ups are late by
// up to half a percent of the interval, as busy timers are: no two starts are
// ever closer than the interval, and the rate stays above 0.97 of the limit.
func TestPacerSimulatedLateness(t *testing.T) {
	for _, rate := range []float64{1, 3, 100} {
		clock := apitest.NewFakeClock(t0)
		p := NewPacer(rate, 4, clock)
		rng := rand.New(rand.NewPCG(7, uint64(rate)))
		base := time.Duration(float64(time.Second) / rate)
		maxLate := base / 200
		interval := time.Duration(float64(base) * (1 + SafetyMargin))
		now := t0
		var starts []time.Time
		for len(starts) < 1000 {
			p.mu.Lock()
			ok, wait := p.tryStart(now)
			p.mu.Unlock()
			if ok {
				starts = append(starts, now)
				p.release(0, now)
				continue
			}
			now = now.Add(wait + time.Duration(rng.Int64N(int64(maxLate))))
		}
		for i := 1; i < len(starts); i++ {
			if gap := starts[i].Sub(starts[i-1]); gap < interval {
				t.Fatalf("rate %g: starts %d and %d only %s apart", rate, i-1, i, gap)
			}
		}
		achieved := float64(len(starts)-1) / starts[len(starts)-1].Sub(starts[0]).Seconds()
		if share := achieved / rate; share < 0.97 || share > 1/(1+SafetyMargin) {
			t.Errorf("rate %g: achieved %.4f of the limit, want 0.97..0.98", rate, share)
		}
	}
}

// waitFor yields until cond holds: a state of the pacer or the fake clock
// that another goroutine reaches, with no clock of its own. A cond that
// never holds hangs the test until go test's -timeout, which prints where
// every goroutine waits (what names it here).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		runtime.Gosched()
	}
}

func (p *Pacer) queued() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.queue)
}

// TestPacerConcurrent has many goroutines share one pacer on an auto clock:
// starts are spaced, never more than parallelism in flight.
func TestPacerConcurrent(t *testing.T) {
	clock := apitest.NewAutoClock(t0)
	p := NewPacer(2, 3, clock)
	var starts []time.Time
	p.onStart = func(now time.Time) { starts = append(starts, now) }
	var wg sync.WaitGroup
	for range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			release, err := p.Wait(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			runtime.Gosched()
			release()
		}()
	}
	wg.Wait()
	st := p.Stats()
	if st.Starts != 40 || len(starts) != 40 {
		t.Fatalf("starts = %d (%d recorded), want 40", st.Starts, len(starts))
	}
	if st.MaxInFlight > 3 {
		t.Errorf("max in flight %d > 3", st.MaxInFlight)
	}
	for i := 1; i < len(starts); i++ {
		if gap := starts[i].Sub(starts[i-1]); gap != 510*ms {
			t.Fatalf("starts %d and %d only %s apart", i-1, i, gap)
		}
	}
	if got := st.StartRate(); got != 2/(1+SafetyMargin) {
		t.Errorf("start rate %.3f/s, want just below 2", got)
	}
}

// TestPacerParallelismAndOrder checks that calls beyond parallelism wait for a
// release, and that waiting callers start in arrival order.
func TestPacerParallelismAndOrder(t *testing.T) {
	clock := apitest.NewFakeClock(t0)
	p := NewPacer(10, 2, clock)
	ctx := context.Background()
	first, err := p.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan int, 10)
	releases := make(chan func(), 10)
	for i := 1; i <= 4; i++ {
		go func() {
			release, err := p.Wait(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			started <- i
			releases <- release
		}()
		waitFor(t, "enqueued", func() bool { return p.queued() == i })
	}
	// The head waits for its slot 102 ms after the first start.
	waitFor(t, "timer", func() bool { return clock.Pending() > 0 })
	clock.Advance(102 * ms)
	if got := <-started; got != 1 {
		t.Fatalf("first to start: %d, want 1", got)
	}
	r1 := <-releases
	// Two in flight now: the next waits for a release, however long it takes.
	clock.Advance(time.Hour)
	if n := p.Stats().Starts; n != 2 {
		t.Fatalf("starts = %d with 2 in flight, want 2", n)
	}
	first()
	if got := <-started; got != 2 {
		t.Fatalf("second to start: %d, want 2", got)
	}
	r1()
	// The rate still applies: the third waits 1/rate after the second.
	waitFor(t, "timer", func() bool { return clock.Pending() > 0 })
	clock.Advance(102 * ms)
	if got := <-started; got != 3 {
		t.Fatalf("third to start: %d, want 3", got)
	}
	for range 2 {
		(<-releases)()
	}
	waitFor(t, "timer", func() bool { return clock.Pending() > 0 })
	clock.Advance(102 * ms)
	if got := <-started; got != 4 {
		t.Fatalf("fourth to start: %d, want 4", got)
	}
}

// TestPacerCancel checks that a canceled waiter leaves the queue and that
// the next one moves up.
func TestPacerCancel(t *testing.T) {
	clock := apitest.NewFakeClock(t0)
	p := NewPacer(1, 1, clock)
	release, _ := p.Wait(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := p.Wait(ctx); errc <- err }()
	waitFor(t, "enqueued", func() bool { return p.queued() == 1 })
	done := make(chan struct{})
	go func() {
		r, err := p.Wait(context.Background())
		if err == nil {
			r()
		}
		close(done)
	}()
	waitFor(t, "enqueued", func() bool { return p.queued() == 2 })
	cancel()
	if err := <-errc; err != context.Canceled {
		t.Fatalf("canceled wait: %v", err)
	}
	if p.queued() != 1 {
		t.Fatalf("queue after cancel = %d, want 1", p.queued())
	}
	release()
	waitFor(t, "timer", func() bool { return clock.Pending() > 0 })
	clock.Advance(1020 * ms)
	<-done
	if _, err := p.Wait(ctx); err != context.Canceled {
		t.Fatalf("wait with a done context: %v", err)
	}
}

func TestSharedPacer(t *testing.T) {
	key := fmt.Sprintf("key-shared-%d", rand.Int64())
	a := SharedPacer(key, 1, 4, nil)
	if b := SharedPacer(key, 1, 4, nil); a != b {
		t.Fatal("same key: different pacers")
	}
	if c := SharedPacer(key+"b", 1, 4, nil); c == a {
		t.Fatal("different keys: same pacer")
	}
	SharedPacer(key, 5, 2, nil)
	if a.Rate() != 1 || a.Parallelism() != 2 {
		t.Fatalf("after a looser rate and a stricter parallelism: rate %g, parallelism %d", a.Rate(), a.Parallelism())
	}
	SharedPacer(key, 0.5, 8, nil)
	if a.Rate() != 0.5 || a.Parallelism() != 2 {
		t.Fatalf("after a stricter rate: rate %g, parallelism %d", a.Rate(), a.Parallelism())
	}
}

// TestPacerSent: the next start is spaced from the moment the request was
// written when that is later than its start.
func TestPacerSent(t *testing.T) {
	clock := apitest.NewFakeClock(t0)
	p := NewPacer(1, 4, clock)
	if ok, _ := step(p, 0); !ok {
		t.Fatal("first start refused")
	}
	clock.Advance(300 * ms) // handshakes of a new connection
	p.Sent()
	if ok, wait := step(p, 1020*ms); ok || wait != 300*ms {
		t.Fatalf("after a late send: (%v, %s), want a wait of 300ms", ok, wait)
	}
	if ok, _ := step(p, 1320*ms); !ok {
		t.Fatal("start refused 1020 ms after the send")
	}
	if st := p.Stats(); st.Sent != 1 || st.Starts != 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestNewPacerDefaults(t *testing.T) {
	p := NewPacer(0, 0, nil)
	if p.Rate() != 1 || p.Parallelism() != DefaultParallelism || p.Limit() != DefaultParallelism {
		t.Fatalf("defaults: rate %g, parallelism %d", p.Rate(), p.Parallelism())
	}
}
