package e2e

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/leadsync/leadsync/internal/cli"
	"github.com/leadsync/leadsync/internal/sandbox"
)

// mainEnv makes the test binary behave as leadsync itself, for tests that
// need a real process of their own (kill -9).
const mainEnv = "LEADSYNC_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		os.Exit(cli.Main())
	}
	testscript.Main(m, map[string]func(){
		"leadsync": func() { os.Exit(cli.Main()) },
	})
}

// e2eRate is the rate limit of the scripts' configurations: the service's
// rules with time compressed, so that the suite stays fast.
const e2eRate = 20

// e2eServerRate is the rate the end-to-end sandboxes enforce: twice the
// configured one. Compressed 20 times, the pacer's 2% margin is 1 ms,
// which a loaded machine's scheduling delays exceed (a request that leaves
// late arrives close to the next one), and the 429s then eat the retries
// that a test of 500s or drops relies on. The pace itself is measured by
// the benchmarks; here a client faster than half its limit still fails.
const e2eServerRate = 2 * e2eRate

type sandboxKey struct{}

type scriptSandbox struct {
	srv  *sandbox.Server
	mark sandbox.Stats
}

// TestScripts runs testdata/script/*.txtar: the real CLI, as a separate
// process, against a sandbox served on loopback for each script.
//
// Each script has $SANDBOX_URL (also as LEADSYNC_VAR_sandbox_url, so that a
// configuration can say base_url = var.sandbox_url) and LEADSYNC_API_KEY set
// to the key the sandbox accepts. Extra commands:
//
//	sandbox-faults k=v ...   set fault knobs (500, drop, truncate, html, slow, storm, retry-after, revoke-after, seed)
//	sandbox-credits N        set the enrich credit balance
//	sandbox-quota N          set the remaining requests this month
//	sandbox-mark             remember the counters; sandbox-stats prints what came since
//	sandbox-stats            print counters since the last mark, one key=value per line
//	csv-env FILE ROW VAR=Header...  set VAR to the cell of data row ROW (1 = first
//	                         after the header) under Header, so that a script can name
//	                         a person the sandbox returned without hard-coding them
//	within-plan FILE         the calls and credits since the last mark are within the
//	                         plan --json in FILE: at least its certain counts, at most its bounds
func TestScripts(t *testing.T) {
	testscript.Run(t, scriptParams())
}

// scriptParams are the parameters TestScripts runs the scripts with.
func scriptParams() testscript.Params {
	return testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: false,
		Setup: func(env *testscript.Env) error {
			srv := sandbox.New(sandbox.Options{
				Seed:          1,
				RateLimit:     e2eServerRate,
				RateWindow:    time.Second / e2eServerRate,
				SearchLatency: [2]time.Duration{5 * time.Millisecond, 40 * time.Millisecond},
			})
			hs := httptest.NewServer(srv)
			env.Defer(hs.Close)
			env.Values[sandboxKey{}] = &scriptSandbox{srv: srv, mark: srv.Stats()}
			env.Setenv("SANDBOX_URL", hs.URL)
			env.Setenv("LEADSYNC_VAR_sandbox_url", hs.URL)
			env.Setenv("LEADSYNC_API_KEY", sandbox.DefaultKey)
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"sandbox-faults":  cmdSandboxFaults,
			"sandbox-credits": cmdSandboxCredits,
			"sandbox-quota":   cmdSandboxQuota,
			"sandbox-mark":    cmdSandboxMark,
			"sandbox-stats":   cmdSandboxStats,
			"within-plan":     cmdWithinPlan,
			"split-truth":     cmdSplitTruth,
			"csv-env":         cmdCSVEnv,
		},
	}
}

func scriptSB(ts *testscript.TestScript) *scriptSandbox {
	return ts.Value(sandboxKey{}).(*scriptSandbox)
}

func cmdSandboxFaults(ts *testscript.TestScript, neg bool, args []string) {
	var f sandbox.Faults
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			ts.Fatalf("sandbox-faults: want key=value, got %q", a)
		}
		num := func() float64 {
			x, err := strconv.ParseFloat(v, 64)
			ts.Check(err)
			return x
		}
		switch k {
		case "500":
			f.Status500 = num()
		case "drop":
			f.Drop = num()
		case "truncate":
			f.Truncate = num()
		case "html":
			f.HTML = num()
		case "slow":
			f.Slow = num()
		case "slowby":
			d, err := time.ParseDuration(v)
			ts.Check(err)
			f.SlowBy = d
		case "storm":
			f.Storm429 = int(num())
		case "retry-after":
			f.RetryAfter = v
		case "revoke-after":
			f.RevokeKeyAfter = int(num())
		case "seed":
			f.Seed = int64(num())
		default:
			ts.Fatalf("sandbox-faults: unknown knob %q", k)
		}
	}
	ts.Check(f.Validate())
	scriptSB(ts).srv.SetFaults(f)
}

func intArg(ts *testscript.TestScript, name string, args []string) int {
	if len(args) != 1 {
		ts.Fatalf("usage: %s N", name)
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	return n
}

func cmdSandboxCredits(ts *testscript.TestScript, neg bool, args []string) {
	scriptSB(ts).srv.SetCredits(intArg(ts, "sandbox-credits", args))
}

func cmdSandboxQuota(ts *testscript.TestScript, neg bool, args []string) {
	scriptSB(ts).srv.SetQuota(intArg(ts, "sandbox-quota", args))
}

func cmdSandboxMark(ts *testscript.TestScript, neg bool, args []string) {
	sb := scriptSB(ts)
	sb.mark = sb.srv.Stats()
}

// cmdSandboxStats prints the counters since the last mark.
func cmdSandboxStats(ts *testscript.TestScript, neg bool, args []string) {
	sb := scriptSB(ts)
	now := sb.srv.Stats()
	m := sb.mark
	lines := map[string]int{
		"calls":        now.Calls - m.Calls,
		"accepted":     now.Accepted - m.Accepted,
		"rate_limited": now.RateLimited - m.RateLimited,
		"forbidden":    now.Forbidden - m.Forbidden,
		"credits":      now.CreditsSpent - m.CreditsSpent,
		"requests":     now.RequestsSpent - m.RequestsSpent,
		"search":       now.ByOp[sandbox.OpSearch] - m.ByOp[sandbox.OpSearch] + now.ByOp[sandbox.OpSearchV2] - m.ByOp[sandbox.OpSearchV2],
		"page":         now.ByOp[sandbox.OpPage] - m.ByOp[sandbox.OpPage] + now.ByOp[sandbox.OpPageV2] - m.ByOp[sandbox.OpPageV2],
		"enrich":       now.ByOp[sandbox.OpEnrich] - m.ByOp[sandbox.OpEnrich],
		"billing":      now.ByOp[sandbox.OpBilling] - m.ByOp[sandbox.OpBilling],
		"fields":       now.ByOp[sandbox.OpFields] - m.ByOp[sandbox.OpFields],
	}
	// enrich_twice counts people paid for more than once, over the whole script.
	twice := 0
	for _, n := range now.Enriched {
		if n > 1 {
			twice++
		}
	}
	lines["enrich_twice"] = twice
	keys := make([]string, 0, len(lines))
	for k := range lines {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(ts.Stdout(), "%s=%d\n", k, lines[k])
	}
}

// cmdWithinPlan checks what the sandbox saw since the last mark against a
// saved `plan --json`: searches, profile reads and enrichments together at
// least totals.calls and at most totals.calls_max; credits likewise; the
// requests of the monthly quota spent at most totals.quota_calls_max. The
// billing call apply makes to plan is not one of the plan's calls (nor its
// request of the quota).
func cmdWithinPlan(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: within-plan PLAN.json")
	}
	var p struct {
		Totals struct {
			Calls         int `json:"calls"`
			CallsMax      int `json:"calls_max"`
			Credits       int `json:"credits"`
			CreditsMax    int `json:"credits_max"`
			QuotaCallsMax int `json:"quota_calls_max"`
		} `json:"totals"`
	}
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &p))
	sb := scriptSB(ts)
	now, mark := sb.srv.Stats(), sb.mark
	calls := 0
	for _, op := range []sandbox.Op{sandbox.OpSearch, sandbox.OpSearchV2, sandbox.OpPage, sandbox.OpPageV2, sandbox.OpEnrich} {
		calls += now.ByOp[op] - mark.ByOp[op]
	}
	credits := now.CreditsSpent - mark.CreditsSpent
	// Every billing call is taken as charged: a retried one makes this
	// count lower, never higher, so the bound below stays sound.
	requests := now.RequestsSpent - mark.RequestsSpent - (now.ByOp[sandbox.OpBilling] - mark.ByOp[sandbox.OpBilling])
	ok := calls >= p.Totals.Calls && calls <= p.Totals.CallsMax && credits >= p.Totals.Credits && credits <= p.Totals.CreditsMax &&
		requests <= p.Totals.QuotaCallsMax
	if ok == neg {
		ts.Fatalf("made %d calls, spent %d credits and %d requests of the quota; the plan said calls %d..%d, credits %d..%d, requests at most %d",
			calls, credits, requests, p.Totals.Calls, p.Totals.CallsMax, p.Totals.Credits, p.Totals.CreditsMax, p.Totals.QuotaCallsMax)
	}
	fmt.Fprintf(ts.Stdout(), "calls=%d (plan %d..%d) credits=%d (plan %d..%d) requests=%d (plan at most %d)\n",
		calls, p.Totals.Calls, p.Totals.CallsMax, credits, p.Totals.Credits, p.Totals.CreditsMax, requests, p.Totals.QuotaCallsMax)
}

func cmdCSVEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: csv-env FILE ROW VAR=Header...")
	}
	recs, err := csv.NewReader(strings.NewReader(ts.ReadFile(args[0]))).ReadAll()
	ts.Check(err)
	row, err := strconv.Atoi(args[1])
	ts.Check(err)
	if len(recs) == 0 || row < 1 || row >= len(recs) {
		ts.Fatalf("csv-env: %s has %d data rows, no row %d", args[0], len(recs)-1, row)
	}
	for _, a := range args[2:] {
		name, header, ok := strings.Cut(a, "=")
		if !ok {
			ts.Fatalf("csv-env: want VAR=Header, got %q", a)
		}
		col := slices.Index(recs[0], header)
		if col < 0 {
			ts.Fatalf("csv-env: %s has no column %q (header %q)", args[0], header, recs[0])
		}
		ts.Setenv(name, recs[row][col])
	}
}
