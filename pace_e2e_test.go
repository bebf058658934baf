package main

import (
	"fmt"
	"os"
	"path/filepath"
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

// TestPaceAcrossTeammates: with the pg backend the pace is the database's,
// so two teammates on one key in different folders (two working copies)
// wait for each other's calls: usage, fields --refresh, plan, usage,
// alternating between the copies, against a service allowing 1 call per
// second, draw no 429 and start no two calls less than a second apart.
func TestPaceAcrossTeammates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes against a sandbox; skipped with -short")
	}
	cs := pgConnStr(t)
	schema := freshSchema(t, cs)
	config := fmt.Sprintf(`
variable "sandbox_url" {
  type = string
}

leadsync {
  backend "pg" {
    schema_name = %q
  }
}

api {
  base_url   = var.sandbox_url
  rate_limit = 1
}

search "s" {
  keywords = "Engineer"
}
`, schema)
	a := newHarness(t, sandbox.Options{Seed: 2, RateLimit: 1, RateWindow: time.Second}, config)
	a.env = append(a.env, "LEADSYNC_PG_CONN_STR="+cs, "LEADSYNC_WORKSPACE=")
	b := *a
	b.dir = t.TempDir()
	writeFile(t, filepath.Join(b.dir, "main.leads.hcl"), config)
	for i, args := range [][]string{{"usage"}, {"fields", "--refresh"}, {"plan"}, {"usage"}} {
		h := a
		if i%2 == 1 {
			h = &b
		}
		if r := h.run(args...); r.code != 0 {
			t.Fatalf("%s", r)
		}
	}
	for _, dir := range []string{a.dir, b.dir} {
		if _, err := os.Stat(filepath.Join(dir, ".leadsync", "pace")); err == nil {
			t.Errorf("%s has a pace file: with the pg backend the pace is kept in the database", dir)
		}
	}
	st := a.srv.Stats()
	if st.RateLimited != 0 {
		t.Errorf("%d calls were answered 429: a teammate did not wait for the other's last call", st.RateLimited)
	}
	if len(st.Starts) < 4 {
		t.Fatalf("the sandbox saw %d calls, want 4 or more", len(st.Starts))
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
