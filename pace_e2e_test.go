package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/sandbox"
)

// TestPaceAcrossProcesses: the rate limit belongs to the key, so a process
// that starts right after another waits for the other's last call (the
// pace file next to the state) instead of drawing a 429: usage then
// fields --refresh then plan, against a service allowing 1 call per second.
func TestPaceAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes against a sandbox; skipped with -short")
	}
	h := newHarness(t, sandbox.Options{Seed: 2, RateLimit: 1, RateWindow: time.Second}, `
variable "sandbox_url" {
  type = string
}

api {
  base_url   = var.sandbox_url
  rate_limit = 1
}

search "s" {
  keywords = "Engineer"
}
`)
	for _, args := range [][]string{{"usage"}, {"fields", "--refresh"}, {"plan"}} {
		if r := h.run(args...); r.code != 0 {
			t.Fatalf("%s", r)
		}
	}
	st := h.srv.Stats()
	if st.RateLimited != 0 {
		t.Errorf("%d calls were answered 429: a new process did not wait for the last call of the one before", st.RateLimited)
	}
	if len(st.Starts) < 3 {
		t.Fatalf("the sandbox saw %d calls, want 3 or more", len(st.Starts))
	}
	for i := 1; i < len(st.Starts); i++ {
		if gap := st.Starts[i].Sub(st.Starts[i-1]); gap < time.Second {
			t.Errorf("calls %d and %d only %s apart", i-1, i, gap)
		}
	}
}

// TestPlanStopsAtUsedUpQuota: plan's billing call answered 429 "monthly
// quota exhausted" is not retried (it used to be, 7 times, for about a
// minute): one call, exit 1, the quota hint.
func TestPlanStopsAtUsedUpQuota(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes against a sandbox; skipped with -short")
	}
	h := newHarness(t, sandbox.Options{Seed: 2, Quota: -1, Faults: sandbox.Faults{QuotaAs429: true}}, fmt.Sprintf(faultConfig, "10s"))
	r := h.run("plan")
	if r.code != 1 || !strings.Contains(r.stderr+r.stdout, "wait for the next invoicing period") {
		t.Fatalf("plan with the quota used up: want exit 1 and the quota hint:\n%s", r)
	}
	if n := h.srv.Stats().Calls; n != 1 {
		t.Errorf("the sandbox saw %d calls, want 1 (no retry of a used-up quota)", n)
	}
}
