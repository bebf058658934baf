package api

import (
	"context"
	"time"
)

type waitHookKey struct{}

// WithWaitHook returns a context under which the client calls hook, in the
// caller's goroutine, before the call waits to be tried again: after a 429
// ("rate limited (429)") or a failure that is retried ("retry after server
// error", ...). d is how long it waits. A caller can then say what a call
// is waiting for instead of going silent for a minute.
func WithWaitHook(ctx context.Context, hook func(d time.Duration, reason string)) context.Context {
	return context.WithValue(ctx, waitHookKey{}, hook)
}

// waiting reports a wait to the observer, the log and the wait hook of ctx.
func (c *Client) waiting(ctx context.Context, op string, d time.Duration, reason string) {
	c.obs.Waiting(op, d, reason)
	c.logWait(op, d, reason)
	if h, ok := ctx.Value(waitHookKey{}).(func(time.Duration, string)); ok {
		h(d, reason)
	}
}
