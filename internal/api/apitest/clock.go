// Package apitest has test helpers for code that uses the api package: a fake
// clock for pacing and backoff without sleeping. It imports nothing of
// leadsync's, so that the api package's own tests can use it.
package apitest

import (
	"sort"
	"sync"
	"time"
)

// FakeClock is an api.Clock whose time moves only when told to. In auto mode
// every After moves the time forward to its deadline at once, so code that
// waits runs without sleeping and sees exactly the durations it waited.
type FakeClock struct {
	mu     sync.Mutex
	now    time.Time
	auto   bool
	timers []fakeTimer
	slept  time.Duration
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

// NewFakeClock returns a clock at start that moves only with Advance.
func NewFakeClock(start time.Time) *FakeClock { return &FakeClock{now: start} }

// NewAutoClock returns a clock at start that jumps to the deadline of every
// After at once.
func NewAutoClock(start time.Time) *FakeClock { return &FakeClock{now: start, auto: true} }

// Now returns the fake time.
func (c *FakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After returns a channel that receives when the fake time reaches now+d.
func (c *FakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	if c.auto {
		c.now = c.now.Add(d)
		c.slept += d
		c.fire()
		ch <- c.now
		return ch
	}
	c.timers = append(c.timers, fakeTimer{at: c.now.Add(d), ch: ch})
	return ch
}

// Advance moves the time forward by d and fires the timers that are due.
func (c *FakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.fire()
}

// Pending returns how many timers wait to fire.
func (c *FakeClock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// NextDeadline returns the earliest pending deadline and whether there is one.
func (c *FakeClock) NextDeadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.timers) == 0 {
		return time.Time{}, false
	}
	sort.Slice(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
	return c.timers[0].at, true
}

// Slept returns the total time After jumped over in auto mode.
func (c *FakeClock) Slept() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.slept
}

// fire delivers due timers; c.mu is held.
func (c *FakeClock) fire() {
	kept := c.timers[:0]
	for _, t := range c.timers {
		if !t.at.After(c.now) {
			t.ch <- c.now
		} else {
			kept = append(kept, t)
		}
	}
	c.timers = kept
}
