package api

import (
	"math"
	"time"
)

// DefaultParallelism is the ceiling of calls in flight when none is
// configured. It is a ceiling, not a throttle: the number of calls in
// flight follows the latencies observed (see Pacer.Limit), and 32 lets the
// rate limit of 1 call/s be kept with calls of up to about 30 s.
const DefaultParallelism = 32

// latencyWindowSize is how many recent call latencies the pacer keeps.
const latencyWindowSize = 64

// latencyWindow holds the latencies of the last calls, oldest overwritten.
type latencyWindow struct {
	buf [latencyWindowSize]time.Duration
	n   int // filled entries
	i   int // next to write
}

func (w *latencyWindow) add(d time.Duration) {
	w.buf[w.i] = max(d, 0)
	w.i = (w.i + 1) % len(w.buf)
	w.n = min(w.n+1, len(w.buf))
}

// high is a high estimate of the next latency: the mean plus two standard
// deviations of the window (0 when empty).
func (w *latencyWindow) high() time.Duration {
	if w.n == 0 {
		return 0
	}
	var sum float64
	for _, d := range w.buf[:w.n] {
		sum += float64(d)
	}
	mean := sum / float64(w.n)
	var sq float64
	for _, d := range w.buf[:w.n] {
		sq += (float64(d) - mean) * (float64(d) - mean)
	}
	return time.Duration(mean + 2*math.Sqrt(sq/float64(w.n)))
}

// inFlightFor is how many calls must be in flight to start one every
// interval when a call takes latency (Little's law: L = λW), with two
// calls of headroom for the spread, bounded by [1, ceiling].
func inFlightFor(latency, interval time.Duration, ceiling int) int {
	if interval <= 0 {
		return ceiling
	}
	n := int(math.Ceil(float64(latency)/float64(interval))) + 2
	return max(1, min(n, ceiling))
}

// limitLocked is how many calls may be in flight now: the configured
// parallelism (the ceiling) until latencies are known, then what Little's
// law asks for at the current pace with a high estimate of the latency.
// The estimate is never below the age of the oldest call still in flight:
// the first answers are the quick ones, and a window of them alone would
// under-state the latency just when long calls are under way. Fewer calls
// in flight means fewer lost to a kill and fewer outcomes unknown when a
// run stops; more would only wait. p.mu is held.
func (p *Pacer) limitLocked() int {
	if p.lat.n == 0 {
		return p.parallelism
	}
	latency := p.lat.high()
	if len(p.flying) > 0 {
		oldest := p.flying[0]
		for _, t := range p.flying[1:] {
			if t.Before(oldest) {
				oldest = t
			}
		}
		latency = max(latency, p.clock.Now().Sub(oldest))
	}
	interval := p.gap()
	return inFlightFor(latency, interval, p.parallelism)
}

// flyingDone removes the start time of a call that ended; p.mu is held.
func (p *Pacer) flyingDone(start time.Time) {
	for i, t := range p.flying {
		if t.Equal(start) {
			p.flying = append(p.flying[:i], p.flying[i+1:]...)
			return
		}
	}
}

// Limit returns how many calls may be in flight now (see limitLocked).
func (p *Pacer) Limit() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.limitLocked()
}
