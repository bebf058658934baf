package api

import "time"

// Observer is told about the calls of a Client, for progress displays and
// debugging. Every method is called synchronously from the calling goroutine,
// possibly from several goroutines at once, and must return quickly. Embed
// NopObserver to implement only some of the hooks.
type Observer interface {
	// CallStart is called when an attempt of op starts (attempt counts from 1).
	CallStart(op string, attempt int)
	// CallDone is called when an attempt ends; status is 0 when no answer
	// arrived, err is nil on success.
	CallDone(op string, status int, d time.Duration, err error)
	// Waiting is called before a call waits longer than a moment: for the
	// rate limit ("rate limit"), after a 429 ("rate limited (429)") or before
	// a retry ("retry after ...").
	Waiting(op string, d time.Duration, reason string)
}

// NopObserver implements Observer and does nothing.
type NopObserver struct{}

// CallStart does nothing.
func (NopObserver) CallStart(string, int) {}

// CallDone does nothing.
func (NopObserver) CallDone(string, int, time.Duration, error) {}

// Waiting does nothing.
func (NopObserver) Waiting(string, time.Duration, string) {}

var _ Observer = NopObserver{}
