package api

import (
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api/apitest"
)

// TestInFlightFor is Little's law with headroom, bounded by the ceiling.
func TestInFlightFor(t *testing.T) {
	s := time.Second
	for _, tt := range []struct {
		latency, interval time.Duration
		ceiling, want     int
	}{
		{0, s, 32, 2},
		{300 * time.Millisecond, s, 32, 3},
		{10 * s, s, 32, 12},
		{30 * s, s, 32, 32},
		{90 * s, s, 32, 32},
		{10 * s, 2 * s, 32, 7}, // slowed down after 429s: fewer needed
		{10 * s, s, 4, 4},      // the configured ceiling holds
		{10 * s, 0, 8, 8},
	} {
		if got := inFlightFor(tt.latency, tt.interval, tt.ceiling); got != tt.want {
			t.Errorf("inFlightFor(%s, %s, %d) = %d, want %d", tt.latency, tt.interval, tt.ceiling, got, tt.want)
		}
	}
}

// TestPacerLimitFollowsLatency: before any call ended the ceiling applies;
// then the limit follows the latencies observed: quick calls keep few in
// flight, slow ones many, never more than the ceiling.
func TestPacerLimitFollowsLatency(t *testing.T) {
	clock := apitest.NewFakeClock(t0)
	p := NewPacer(1, 32, clock)
	if got := p.Limit(); got != 32 {
		t.Fatalf("limit before any latency is known = %d, want the ceiling 32", got)
	}
	call := func(latency time.Duration) {
		p.mu.Lock()
		now := p.clock.Now()
		ok, wait := p.tryStart(now)
		p.mu.Unlock()
		if !ok {
			clock.Advance(wait)
			p.mu.Lock()
			now = p.clock.Now()
			ok, _ = p.tryStart(now)
			p.mu.Unlock()
			if !ok {
				t.Fatal("start refused after its wait")
			}
		}
		clock.Advance(latency)
		p.release(0, now)
	}
	for range latencyWindowSize {
		call(500 * time.Millisecond)
	}
	if got := p.Limit(); got != 3 {
		t.Errorf("limit with 0.5 s calls = %d, want 3", got)
	}
	for i := range latencyWindowSize {
		call(time.Duration(2+i%29) * time.Second) // 2..30 s
	}
	if got := p.Limit(); got != 32 {
		t.Errorf("limit with 2-30 s calls = %d, want the ceiling 32", got)
	}
	for range latencyWindowSize {
		call(8 * time.Second)
	}
	if got := p.Limit(); got != 10 { // ceil(8 s / 1.02 s) + 2
		t.Errorf("limit with 8 s calls = %d, want 10", got)
	}
}

// TestPacerLimitNeverThrottlesThePace: however short the latencies seen so
// far (the first answers are the quick ones), calls started at the pace
// and still in flight raise the limit with their age, so the limit never
// holds back a start the rate allows: Little's law at the configured pace.
// After 429s the pace slows and the limit with it.
func TestPacerLimitNeverThrottlesThePace(t *testing.T) {
	clock := apitest.NewFakeClock(t0)
	p := NewPacer(1, 32, clock)
	p.mu.Lock()
	for range latencyWindowSize {
		p.lat.add(2 * time.Second)
	}
	p.mu.Unlock()
	for n := 0; n < 31; n++ {
		p.mu.Lock()
		lim := p.limitLocked()
		ok, wait := p.tryStart(clock.Now())
		p.mu.Unlock()
		if !ok {
			clock.Advance(wait)
			n--
			continue
		}
		if lim <= n {
			t.Fatalf("limit %d with %d calls in flight started at the pace", lim, n)
		}
	}
	if got := p.Limit(); got != 32 {
		t.Errorf("limit with a call in flight for 30 s = %d, want 32", got)
	}
	p.Throttle(0)
	p.Throttle(0)
	if got := p.Limit(); got >= 32 {
		t.Errorf("limit after two 429s (pace / 4) = %d, want fewer than 32", got)
	}
}
