package cli

import (
	"context"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/views"
)

// noteWaits returns ctx under which a call that is retried says on stderr
// what it waits for. The billing read before a plan or an apply, and usage,
// are retried up to 7 times (about 50 s) on a network or server error;
// without this they did so in silence. The calls apply makes set their own
// hook (the live display says it), which takes precedence.
func noteWaits(ctx context.Context, f *Factory) context.Context {
	return api.WithWaitHook(ctx, func(d time.Duration, reason string) {
		views.Waiting(f.IO.ErrOut, d, reason)
	})
}
