package views

import (
	"sort"
	"time"

	"github.com/leadsync/leadsync/internal/engine"
)

// Counter counts an apply as it runs: calls started and done of the
// planned bound, credits spent, the calls in flight, the rate and the time
// left. It draws nothing (the progress printers format what it counts) and
// reads time only from its clock, so it is tested without sleeping.
type Counter struct {
	now      func() time.Time
	start    time.Time
	CallsMax int
	// Limit is the configured rate limit, calls per second (0: none known):
	// the rate shown never exceeds it, since the pacer never does.
	Limit    float64
	Started  int
	Done     int
	Credits  int
	inflight map[int]engine.Call
}

// NewCounter returns a counter that reads the time from now.
func NewCounter(now func() time.Time) *Counter {
	return &Counter{now: now, inflight: map[int]engine.Call{}}
}

// Start begins the count: the clock starts, with callsMax planned.
func (c *Counter) Start(callsMax int) {
	c.start = c.now()
	c.CallsMax = callsMax
}

// CallStart counts a call handed to the service.
func (c *Counter) CallStart(call engine.Call) {
	c.Started++
	c.inflight[call.Seq] = call
}

// CallEnd counts a call finished (done or failed) with the credits it spent.
func (c *Counter) CallEnd(call engine.Call, credits int) {
	delete(c.inflight, call.Seq)
	c.Done++
	c.Credits += credits
}

// InFlight returns the calls in flight, in the order they started.
func (c *Counter) InFlight() []engine.Call {
	seqs := make([]int, 0, len(c.inflight))
	for s := range c.inflight {
		seqs = append(seqs, s)
	}
	sort.Ints(seqs)
	out := make([]engine.Call, 0, len(seqs))
	for _, s := range seqs {
		out = append(out, c.inflight[s])
	}
	return out
}

// Rate is the calls started per second since Start, and Left the time the
// remaining planned calls take at that rate. Before two calls have started
// the rate means nothing (one call in a short time is any rate at all):
// rate is 0 and ok false. The rate is capped at Limit: calls start no
// faster than the pacer lets them, and a burst at the start (calls queued
// while the clock barely moved) must not show more. ok is false when the
// time left cannot be known: no rate yet, or more calls started than
// planned.
func (c *Counter) Rate() (rate float64, left time.Duration, ok bool) {
	if c.Started < 2 {
		return 0, 0, false
	}
	elapsed := c.now().Sub(c.start)
	if elapsed > 0 {
		rate = float64(c.Started) / elapsed.Seconds()
	}
	if c.Limit > 0 && rate > c.Limit {
		rate = c.Limit
	}
	if rate > 0 && c.CallsMax >= c.Started {
		return rate, time.Duration(float64(c.CallsMax-c.Started) / rate * float64(time.Second)), true
	}
	return rate, 0, false
}
