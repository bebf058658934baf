package e2e

// One pace per API key, across processes and teammates: a process that
// starts right after another waits for the other's last call.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/testenv"
)

// TestPaceAcrossProcesses: the rate limit belongs to the key, so a process
// that starts right after another waits for the other's last call (the
// pace file next to the state): usage then fields --refresh then plan,
// against a service allowing 1 call per second, start no two calls less
// than a second apart.
func TestPaceAcrossProcesses(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes against a sandbox")
	t.Parallel()
	// The spacing is checked where the calls leave the pacers (see
	// clientStarts); the sandbox, which refuses a second call within half
	// a second, only says how the calls arrived (see note429).
	h := newHarness(t, sandbox.Options{Seed: 2, RateLimit: 1, RateWindow: 500 * time.Millisecond}, `
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
	h.env = append(h.env, "LEADSYNC_LOG=debug")
	var starts []time.Time
	for _, args := range [][]string{{"usage"}, {"fields", "--refresh"}, {"plan"}} {
		r := h.run(args...)
		if r.code != 0 {
			t.Fatalf("%s", r)
		}
		starts = append(starts, clientStarts(t, r.stderr)...)
	}
	checkSpaced(t, starts, 3)
	note429(t, h.srv.Stats())
}

// clientStarts reads, from a LEADSYNC_LOG=debug log, when each call left
// the pacer (the log's time less the call's duration): the pacer spaces
// these by its own clock. Where the sandbox sees the calls arrive depends
// on how soon a busy machine runs the request on its way, which no pacer
// controls, so the spacing is checked here, at the source.
func clientStarts(t *testing.T, log string) []time.Time {
	t.Helper()
	var out []time.Time
	for _, line := range strings.Split(log, "\n") {
		if !strings.Contains(line, `msg="api call"`) {
			continue
		}
		var at time.Time
		var d time.Duration
		for _, f := range strings.Fields(line) {
			k, v, _ := strings.Cut(f, "=")
			var err error
			switch k {
			case "time":
				at, err = time.Parse(time.RFC3339Nano, v)
			case "duration":
				d, err = time.ParseDuration(v)
			}
			if err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
		}
		if at.IsZero() {
			t.Fatalf("log line without a time: %q", line)
		}
		out = append(out, at.Add(-d))
	}
	return out
}

// note429 logs the calls the sandbox answered 429. They are no failure by
// themselves: every attempt, a 429 one too, is logged and checked by
// checkSpaced at the source, so a 429 here means two calls that left the
// pacers a gap apart arrived closer than the sandbox's window, delayed on
// their way by a busy machine, which no pacer controls.
func note429(t *testing.T, st sandbox.Stats) {
	t.Helper()
	if st.RateLimited != 0 {
		t.Logf("%d calls were answered 429 although they left the pacers at least a gap apart (a busy machine delayed them on their way)", st.RateLimited)
	}
}

// checkSpaced fails unless there are at least n starts, each at least a
// second after the one before (less the log's millisecond rounding).
//
// A real clock is the point here, not a shortcut: the rate limit is the
// service's, in seconds of real time, and the processes share it through
// the pace file (or the database), which holds wall-clock times, so no
// clock of the test can stand in for theirs. The check is a lower bound
// taken where each process's own pacer lets a call go: a loaded machine can
// only make the gaps longer, never shorter, so it stays green with both
// cores busy (the arrival times at the sandbox, which a busy machine does
// move, are only logged: see note429).
func checkSpaced(t *testing.T, starts []time.Time, n int) {
	t.Helper()
	checkSpacedBy(t, starts, n, time.Second)
}

// checkSpacedBy is checkSpaced for a rate of one call per gap.
func checkSpacedBy(t *testing.T, starts []time.Time, n int, gap time.Duration) {
	t.Helper()
	if len(starts) < n {
		t.Fatalf("%d calls logged, want %d or more", len(starts), n)
	}
	slices.SortFunc(starts, time.Time.Compare)
	for i := 1; i < len(starts); i++ {
		if d := starts[i].Sub(starts[i-1]); d < gap-3*time.Millisecond {
			t.Errorf("calls %d and %d started only %s apart, at one call per %s", i-1, i, d, gap)
		}
	}
}

// TestPaceHoldsThroughAPGOutage stops the PostgreSQL cluster of the state
// in the middle of an apply at 4 calls/s, with 8 calls at once allowed,
// until the apply has tried to write an answer again four times (about
// 1.5 s), then starts it again. No two calls leave closer than the rate
// allows (checked where they leave the pacer, see clientStarts), and no
// call starts after the run said it stops: before, every call that left the pacer meanwhile waited
// at its start hook for the state, and all were sent together when the
// database came back (16 in 34 ms at 1 call/s), after the run had said
// the calls not yet started are not sent.
func TestPaceHoldsThroughAPGOutage(t *testing.T) {
	testenv.SkipIfShort(t, "stops a PostgreSQL cluster of its own")
	t.Parallel()
	c := ownPG(t)
	for _, at := range moments(faultSeed(t), 2) {
		at = max(at, 4) // a read in flight: the searches and the profile are done
		t.Run(fmt.Sprintf("stopped after %d calls", at), func(t *testing.T) { paceThroughOutage(t, c, at) })
	}
}

// paceThroughOutage is one run of TestPaceHoldsThroughAPGOutage, the
// cluster stopped after at calls.
func paceThroughOutage(t *testing.T, c *pgCluster, at int) {
	opts := sandbox.Options{Seed: 21, RateLimit: 16, RateWindow: time.Second / 16} // four times the rate, as every e2e sandbox (e2eServerRate)
	gate := holdReads(&opts)
	config := strings.Replace(fmt.Sprintf(faultConfig, "60s"), "rate_limit  = 20\n  parallelism = 3", "rate_limit  = 4\n  parallelism = 8", 1)
	h := newHarness(t, opts, config)
	h.pgConnStr, h.pgSchema = c.connStr, schemaName("outage_")
	h.env = append(h.env, "LEADSYNC_PG_CONN_STR="+c.connStr, testBackendEnv+"="+h.pgSchema,
		testWriteRetryEnv+"="+faultRetry, "LEADSYNC_LOG=debug")
	ar := h.runFaulted(at, gate, func(w *watchedApply) {
		c.ctl(t, "stop", "-m", "fast")
		gate.open() // the answers come back to a stopped server
		tries := 0
		for note := range w.notes {
			if strings.Contains(note, "trying again") {
				if tries++; tries == 4 {
					break
				}
			}
		}
		c.ctl(t, "start")
	})
	c.waitReady(t)
	starts := clientStarts(t, ar.stderr)
	checkSpacedBy(t, starts, at+1, time.Second/4)
	// The sandbox's 429s are only noted: it reads its clock when its
	// handler runs in this test process, which a loaded machine may hold
	// back longer than the gap. At load average 24 two calls that left
	// the pacer a gap apart reached it 3 ms apart, and were answered 429.
	note429(t, h.srv.Stats())
	// What the run says it will not send, it does not send.
	stopped := ""
	for _, ev := range ar.events {
		switch {
		case ev.MessageType == "stopping" && stopped == "":
			stopped = ev.Reason
		case ev.MessageType == "call_start" && stopped != "":
			t.Errorf("%s started after the run said it stopped (%s)", ev.key(), stopped)
		}
	}
	if t.Failed() {
		t.Logf("the faulted run:\n%s", ar.result)
	}
}

// TestPaceAcrossTeammates: with the pg backend the pace is the database's,
// so two teammates on one key in different folders (two working copies)
// wait for each other's calls: usage, fields --refresh, plan, usage,
// alternating between the copies, against a service allowing 1 call per
// second, start no two calls less than a second apart.
func TestPaceAcrossTeammates(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes against a sandbox")
	t.Parallel()
	a := newHarness(t, sandbox.Options{Seed: 2, RateLimit: 1, RateWindow: 500 * time.Millisecond}, "")
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
`, a.usePG())
	a.env = append(a.env, "LEADSYNC_LOG=debug")
	a.writeConfig(config)
	b := a.workingCopy(config)
	var starts []time.Time
	for i, args := range [][]string{{"usage"}, {"fields", "--refresh"}, {"plan"}, {"usage"}} {
		h := a
		if i%2 == 1 {
			h = b
		}
		r := h.run(args...)
		if r.code != 0 {
			t.Fatalf("%s", r)
		}
		starts = append(starts, clientStarts(t, r.stderr)...)
	}
	for _, dir := range []string{a.dir, b.dir} {
		if _, err := os.Stat(filepath.Join(dir, ".leadsync", "pace")); err == nil {
			t.Errorf("%s has a pace file: with the pg backend the pace is kept in the database", dir)
		}
	}
	checkSpaced(t, starts, 4)
	note429(t, a.srv.Stats())
}
