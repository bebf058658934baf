package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
)

// faultConfig has 3 searches of up to 6 results, one profile read and an
// enrichment of everyone found: about 22 calls, small enough that every row
// of the fault matrix runs in a second or two, large enough that a share of
// 5 or 10 % of calls hits several of them. The timeout is short so that the
// slow row times out quickly.
const faultConfig = `
variable "sandbox_url" {
  type = string
}

api {
  base_url    = var.sandbox_url
  rate_limit  = 20
  parallelism = 3
  timeout     = "%s"
}

search "eng" {
  for_each    = toset(["Berlin", "Hamburg", "Köln"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 6
}

profile "founder" {
  page_name = "Max_Mustermann"
}

enrich "all" {
  from = [search.eng, profile.founder]
}

export "out" {
  path = "out/leads.xlsx"
  sheet "All" {
    from = [search.eng, profile.founder]
  }
}
`

// harness is one project folder and the sandbox it talks to, driven through
// real leadsync processes (the test binary re-executed as leadsync).
type harness struct {
	t   *testing.T
	srv *sandbox.Server
	url string
	dir string
	env []string
}

func newHarness(t *testing.T, opts sandbox.Options, config string) *harness {
	t.Helper()
	if opts.RateLimit == 0 {
		opts.RateLimit, opts.RateWindow = e2eRate, time.Second/e2eRate
	}
	if opts.SearchLatency == [2]time.Duration{} {
		opts.SearchLatency = [2]time.Duration{5 * time.Millisecond, 30 * time.Millisecond}
	}
	if opts.ReadLatency == [2]time.Duration{} {
		opts.ReadLatency = [2]time.Duration{2 * time.Millisecond, 10 * time.Millisecond}
	}
	srv := sandbox.New(opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	dir := t.TempDir()
	if config != "" {
		writeFile(t, filepath.Join(dir, "main.leads.hcl"), config)
	}
	env := append(os.Environ(), mainEnv+"=1", "LEADSYNC_VAR_sandbox_url="+hs.URL,
		"LEADSYNC_API_KEY="+srv.Key(), "NO_COLOR=1", "LEADSYNC_LOG="+os.Getenv("HARDENING_LOG"))
	return &harness{t: t, srv: srv, url: hs.URL, dir: dir, env: env}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// result is what one leadsync process did.
type result struct {
	args   []string
	stdout string
	stderr string
	code   int
}

func (r result) String() string {
	return fmt.Sprintf("leadsync %s: exit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// exe returns the test binary, which runs as leadsync with mainEnv=1.
func testExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// command builds a leadsync process in the harness's folder.
func (h *harness) command(args ...string) *exec.Cmd {
	cmd := exec.Command(testExe(h.t), append(append([]string{}, args...), "--chdir", h.dir)...)
	cmd.Env = h.env
	cmd.Dir = h.dir
	return cmd
}

// run runs leadsync to the end.
func (h *harness) run(args ...string) result {
	h.t.Helper()
	cmd := h.command(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{args: args, stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		h.t.Fatalf("leadsync %v: %v", args, err)
	}
	noStackTrace(h.t, r)
	return r
}

// noStackTrace fails the test when a Go panic or stack trace reached the user.
func noStackTrace(t *testing.T, r result) {
	t.Helper()
	for _, s := range []string{r.stdout, r.stderr} {
		if strings.Contains(s, "goroutine ") || strings.Contains(s, "panic:") {
			t.Fatalf("a stack trace reached the user:\n%s", r)
		}
	}
}

// applyEvent is one line of apply --json.
type applyEvent struct {
	MessageType string `json:"message_type"`
	Call        struct {
		Kind    string `json:"kind"`
		Address string `json:"address"`
		Person  string `json:"person"`
		Page    string `json:"page_name"`
	} `json:"call"`
	Error     string `json:"error"`
	ErrorKind string `json:"error_kind"`
	Hint      string `json:"hint"`
	Status    int    `json:"status"`
	Reason    string `json:"reason"`
	// summary
	Calls      int    `json:"calls"`
	CallsMax   int    `json:"calls_max"`
	Credits    int    `json:"credits"`
	CreditsMax int    `json:"credits_max"`
	Succeeded  int    `json:"succeeded"`
	Failed     int    `json:"failed"`
	Stopped    string `json:"stopped"`
}

// key identifies a call across runs: searches and profiles by address,
// enrichments by person.
func (e applyEvent) key() string {
	if e.Call.Kind == "enrich" {
		return "enrich " + e.Call.Page
	}
	return e.Call.Kind + " " + e.Call.Address
}

// applyRun is an apply --json run, parsed.
type applyRun struct {
	result
	events   []applyEvent
	started  map[string]int // call key -> call_start count
	done     map[string]bool
	errors   []applyEvent
	summary  *applyEvent
	stopping []string
}

// applyJSON runs apply --auto-approve --json; each parsed event is passed
// to during (if not nil) as it arrives, so that a test can change the
// sandbox mid-run.
func (h *harness) applyJSON(during func(applyEvent), extra ...string) *applyRun {
	h.t.Helper()
	cmd := h.command(append([]string{"apply", "--auto-approve", "--json"}, extra...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	ar := &applyRun{started: map[string]int{}, done: map[string]bool{}}
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		out.Write(sc.Bytes())
		out.WriteByte('\n')
		var ev applyEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		ar.events = append(ar.events, ev)
		switch ev.MessageType {
		case "call_start":
			ar.started[ev.key()]++
		case "call_done":
			ar.done[ev.key()] = true
		case "call_error":
			ar.errors = append(ar.errors, ev)
		case "stopping":
			ar.stopping = append(ar.stopping, ev.Reason)
		case "summary":
			e := ev
			ar.summary = &e
		}
		if during != nil {
			during(ev)
		}
	}
	err = cmd.Wait()
	ar.result = result{args: cmd.Args[1:], stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		ar.code = ee.ExitCode()
	default:
		h.t.Fatalf("apply: %v", err)
	}
	noStackTrace(h.t, ar.result)
	return ar
}

func (h *harness) statePath() string { return filepath.Join(h.dir, ".leadsync", "state.json") }

// loadState loads the state (replaying any journal) and fails the test if
// it does not load.
func (h *harness) loadState() *state.State {
	h.t.Helper()
	st, err := state.NewStore(h.statePath()).Load()
	if err != nil {
		h.t.Fatalf("state does not load: %v", err)
	}
	return st
}

// checkDoneInState checks that every call the run reported done is in state.
func (h *harness) checkDoneInState(ar *applyRun) {
	h.t.Helper()
	st := h.loadState()
	byPage := map[string]*state.Person{}
	for _, p := range st.People {
		byPage[p.Lead.PageName] = p
	}
	for _, ev := range ar.events {
		if ev.MessageType != "call_done" {
			continue
		}
		switch ev.Call.Kind {
		case "search":
			if st.Searches[ev.Call.Address] == nil {
				h.t.Errorf("%s completed but is not in state", ev.Call.Address)
			}
		case "profile":
			if st.Profiles[ev.Call.Address] == nil {
				h.t.Errorf("%s completed but is not in state", ev.Call.Address)
			}
		case "enrich":
			p := byPage[ev.Call.Page]
			if p == nil || p.Enrichment == nil {
				h.t.Errorf("enrichment of %s completed but is not in state", ev.Call.Page)
			}
		}
	}
}

// enrichedTwice lists the page names the sandbox charged more than once.
func (h *harness) enrichedTwice() []string {
	var twice []string
	for page, n := range h.srv.Stats().Enriched {
		if n > 1 {
			twice = append(twice, page)
		}
	}
	sort.Strings(twice)
	return twice
}

// faultRow is one row of the fault matrix.
type faultRow struct {
	name    string
	timeout string // api.timeout; "10s" when empty
	faults  func() sandbox.Faults
	// midRun sets the faults after the first completed call rather than
	// before the run (which would spend a storm on the quota check alone).
	midRun bool
	// credits and quota set the sandbox's balances before the run (0: default).
	credits int
	// during is called for each event of the faulted run.
	during func(h *harness, ev applyEvent, done int)
	// wantExit is the exit code; -1 accepts 0 or 1 (which calls a share of
	// faults hits depends on the order calls arrive in).
	wantExit int
	// failKinds are the error kinds a failed call may have.
	failKinds []string
	// stopped, when set, must match the summary's stopped reason.
	stopped string
	// message must appear in the hint of every failure: what to do.
	message string
	// maybeChargedTwice: an enrichment that failed ambiguously (the service
	// may have done the work) may be charged again by the next apply — the
	// documented enrich policy. Otherwise nobody may be charged twice.
	maybeChargedTwice bool
	// clear restores the sandbox before the second apply.
	clear func(h *harness)
	// check runs extra checks after the faulted run.
	check func(t *testing.T, h *harness, ar *applyRun)
}

// TestFaultMatrix runs apply against a sandbox with one kind of fault per
// row. For each row: the run ends in a defined way (exit code, summary,
// error kinds), every call reported done is in state, nobody is charged
// twice unless the enrich policy allows it, the failures say what to do;
// then, with the fault cleared, a second apply completes and repeats no
// completed call, and a plan has nothing left to do.
func TestFaultMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes against a sandbox; skipped with -short")
	}
	rows := []faultRow{
		{
			name:     "429 storm with Retry-After seconds",
			faults:   func() sandbox.Faults { return sandbox.Faults{Storm429: 4, RetryAfter: "1"} },
			midRun:   true,
			wantExit: 0,
			check: func(t *testing.T, h *harness, ar *applyRun) {
				if n := h.srv.Stats().Faults[sandbox.FaultStorm429]; n != 4 {
					t.Errorf("%d calls got the storm's 429, want 4", n)
				}
			},
		},
		{
			name: "429 storm with Retry-After HTTP date",
			faults: func() sandbox.Faults {
				return sandbox.Faults{Storm429: 4, RetryAfter: time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat)}
			},
			midRun:   true,
			wantExit: 0,
		},
		{
			name:     "429 storm without Retry-After",
			faults:   func() sandbox.Faults { return sandbox.Faults{Storm429: 4} },
			midRun:   true,
			wantExit: 0,
		},
		{
			name:     "10% of calls answered 500",
			faults:   func() sandbox.Faults { return sandbox.Faults{Status500: 0.10, Seed: 3} },
			wantExit: -1, failKinds: []string{"server error"},
			message: "try again later",
		},
		{
			name:     "5% of connections dropped after the work",
			faults:   func() sandbox.Faults { return sandbox.Faults{Drop: 0.05, Seed: 5} },
			wantExit: -1, failKinds: []string{"network error"},
			maybeChargedTwice: true,
		},
		{
			name:     "answers slower than the timeout",
			timeout:  "400ms",
			faults:   func() sandbox.Faults { return sandbox.Faults{Slow: 0.10, SlowBy: 2 * time.Second, Seed: 9} },
			wantExit: -1, failKinds: []string{"timeout"},
			message:           "raise api.timeout",
			maybeChargedTwice: true,
		},
		{
			name:     "truncated bodies",
			faults:   func() sandbox.Faults { return sandbox.Faults{Truncate: 0.10, Seed: 11} },
			wantExit: -1, failKinds: []string{"undecodable answer"},
			message:           "check api.base_url",
			maybeChargedTwice: true,
		},
		{
			name:     "HTML bodies",
			faults:   func() sandbox.Faults { return sandbox.Faults{HTML: 0.10, Seed: 13} },
			wantExit: -1, failKinds: []string{"undecodable answer"},
			message: "check api.base_url",
		},
		{
			name:     "credits run out mid-run",
			credits:  5,
			wantExit: 1, failKinds: []string{"forbidden"},
			stopped: "top up the credit balance",
			message: "top up the credit balance",
			clear:   func(h *harness) { h.srv.SetCredits(1000) },
			check: func(t *testing.T, h *harness, ar *applyRun) {
				n := 0
				for k := range ar.done {
					if strings.HasPrefix(k, "enrich ") {
						n++
					}
				}
				if n != 5 {
					t.Errorf("%d enrichments completed with 5 credits", n)
				}
			},
		},
		{
			name: "quota runs out mid-run",
			during: func(h *harness, ev applyEvent, done int) {
				// Another program spends the month's last requests.
				if ev.MessageType == "call_done" && done == 3 {
					h.srv.SetQuota(2)
				}
			},
			wantExit: 1, failKinds: []string{"forbidden"},
			stopped: "monthly request quota is used up",
			message: "wait for the next invoicing period",
			clear:   func(h *harness) { h.srv.SetQuota(10000) },
		},
		{
			name:     "key revoked mid-run",
			faults:   func() sandbox.Faults { return sandbox.Faults{RevokeKeyAfter: 8} },
			wantExit: 1, failKinds: []string{"forbidden"},
			stopped: "API key",
			message: "check the API key",
		},
	}
	for _, row := range rows {
		t.Run(strings.ReplaceAll(row.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			timeout := row.timeout
			if timeout == "" {
				timeout = "10s"
			}
			h := newHarness(t, sandbox.Options{Seed: 21}, fmt.Sprintf(faultConfig, timeout))
			if row.faults != nil && !row.midRun {
				h.srv.SetFaults(row.faults())
			}
			if row.credits != 0 {
				h.srv.SetCredits(row.credits)
			}
			var mu sync.Mutex
			done := 0
			during := func(ev applyEvent) {
				mu.Lock()
				defer mu.Unlock()
				if ev.MessageType == "call_done" {
					done++
					if done == 1 && row.midRun {
						h.srv.SetFaults(row.faults())
					}
				}
				if row.during != nil {
					row.during(h, ev, done)
				}
			}
			creditsBefore := h.srv.Stats().CreditsSpent
			ar := h.applyJSON(during)
			checkFaultedRun(t, h, row, ar)
			if os.Getenv("HARDENING_LOG") != "" {
				t.Logf("faulted run:\n%s", ar.result)
			}
			if spent := h.srv.Stats().CreditsSpent - creditsBefore; ar.summary != nil && spent > ar.summary.CreditsMax {
				t.Errorf("the run spent %d credits; the plan said at most %d", spent, ar.summary.CreditsMax)
			}
			if row.check != nil {
				row.check(t, h, ar)
			}
			if t.Failed() {
				t.Logf("faulted run:\n%s", ar.result)
				return
			}

			// Clear the fault: the next apply finishes the work and repeats
			// no completed call.
			h.srv.SetFaults(sandbox.Faults{})
			if row.clear != nil {
				row.clear(h)
			}
			ar2 := h.applyJSON(nil)
			if ar2.code != 0 {
				t.Fatalf("apply after clearing the fault failed:\n%s", ar2.result)
			}
			for k := range ar2.started {
				if ar.done[k] {
					t.Errorf("%s completed in the faulted run and was called again", k)
				}
			}
			h.checkDoneInState(ar2)
			checkCharges(t, h, row, ar)
			if r := h.run("plan", "--detailed-exitcode"); r.code != 0 {
				t.Errorf("a plan after the second apply still has work:\n%s", r)
			}
			if _, err := os.Stat(filepath.Join(h.dir, "out", "leads.xlsx")); err != nil {
				t.Errorf("no spreadsheet after the second apply: %v", err)
			}
		})
	}
}

// checkFaultedRun checks the run under faults ended in a defined way.
func checkFaultedRun(t *testing.T, h *harness, row faultRow, ar *applyRun) {
	t.Helper()
	if ar.summary == nil {
		t.Fatalf("the faulted run printed no summary:\n%s", ar.result)
	}
	switch {
	case row.wantExit >= 0 && ar.code != row.wantExit:
		t.Errorf("exit %d, want %d", ar.code, row.wantExit)
	case row.wantExit < 0 && ar.code != 0 && ar.code != 1:
		t.Errorf("exit %d, want 0 or 1", ar.code)
	}
	// The exit code agrees with the summary.
	if failed := ar.summary.Failed > 0 || ar.summary.Stopped != ""; failed != (ar.code == 1) {
		t.Errorf("exit %d with %d failures and stopped=%q", ar.code, ar.summary.Failed, ar.summary.Stopped)
	}
	if ar.summary.Calls > ar.summary.CallsMax {
		t.Errorf("%d calls made, at most %d planned", ar.summary.Calls, ar.summary.CallsMax)
	}
	if len(ar.errors) != ar.summary.Failed {
		t.Errorf("%d call_error events, summary says %d failed", len(ar.errors), ar.summary.Failed)
	}
	for _, e := range ar.errors {
		if !contains(row.failKinds, e.ErrorKind) {
			t.Errorf("%s failed with %q (%s), want one of %q", e.key(), e.ErrorKind, e.Error, row.failKinds)
		}
		if e.Hint == "" {
			t.Errorf("%s failed without a hint of what to do: %s", e.key(), e.Error)
		}
		if row.message != "" && !strings.Contains(e.Hint, row.message) {
			t.Errorf("the failure of %s does not say %q: %s (%s)", e.key(), row.message, e.Error, e.Hint)
		}
	}
	if row.stopped != "" && !strings.Contains(ar.summary.Stopped, row.stopped) {
		t.Errorf("stopped reason %q does not say %q", ar.summary.Stopped, row.stopped)
	}
	if ar.code != 0 && row.wantExit < 0 && len(ar.errors) == 0 {
		t.Errorf("exit %d without a failed call", ar.code)
	}
	h.checkDoneInState(ar)
	// A search or profile is called again only after it failed.
	for k, n := range ar.started {
		if n > 1 {
			t.Errorf("%s started %d times in one run", k, n)
		}
	}
}

// checkCharges checks nobody was charged twice, except people whose
// enrichment failed ambiguously in the faulted run when the row allows it.
func checkCharges(t *testing.T, h *harness, row faultRow, ar *applyRun) {
	t.Helper()
	ambiguous := map[string]bool{}
	for _, e := range ar.errors {
		if e.Call.Kind == "enrich" && row.maybeChargedTwice {
			ambiguous[e.Call.Page] = true
		}
	}
	for _, page := range h.enrichedTwice() {
		if !ambiguous[page] {
			t.Errorf("%s was charged twice, but its enrichment did not fail ambiguously", page)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
