package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
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
		opts.RateLimit, opts.RateWindow = e2eServerRate, time.Second/e2eServerRate
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
	pid      int
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
	ar := &applyRun{started: map[string]int{}, done: map[string]bool{}, pid: cmd.Process.Pid}
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
	st, err := local.NewStore(h.statePath()).Load()
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
				// Waits are never silent: the output says what a call waits for.
				waits := 0
				for _, ev := range ar.events {
					if ev.MessageType == "waiting" && strings.Contains(ev.Reason, "429") {
						waits++
					}
				}
				if waits == 0 {
					t.Errorf("no waiting event while the calls waited after 429s:\n%s", ar.result)
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
		// A 200 that carries nothing, or someone else, is a failure: never
		// recorded as done, so the next apply fetches it.
		badRow("empty 200 bodies", sandbox.BadEmpty, "undecodable answer"),
		badRow("null bodies", sandbox.BadNull, "undecodable answer"),
		badRow("{} bodies", sandbox.BadEmptyObject, "undecodable answer"),
		badRow("[null] bodies", sandbox.BadNullItem, "undecodable answer"),
		badRow("leads without networkId and pageName", sandbox.BadNoID, "undecodable answer"),
		badRow("answers about another person", sandbox.BadOtherPerson, "answer for another person"),
		{
			name:   "monthly quota used up, answered 429",
			faults: func() sandbox.Faults { return sandbox.Faults{QuotaAs429: true} },
			during: func(h *harness, ev applyEvent, done int) {
				if ev.MessageType == "call_done" && done == 3 {
					h.srv.SetQuota(2)
				}
			},
			// A call waiting to retry after another 429 when the run stops
			// is reported not sent.
			wantExit: 1, failKinds: []string{"rate limited", "not sent"},
			stopped: "monthly request quota is used up",
			clear:   func(h *harness) { h.srv.SetQuota(10000) },
			check: func(t *testing.T, h *harness, ar *applyRun) {
				for _, e := range ar.errors {
					if strings.Contains(e.Error, "quota") && !strings.Contains(e.Hint, "wait for the next invoicing period") {
						t.Errorf("the quota failure of %s does not say what to do: %s", e.key(), e.Hint)
					}
				}
				// The run stops at the first quota 429: the calls in flight
				// then may get one each, none is tried again.
				if n := h.srv.Stats().Status[http.StatusTooManyRequests]; n > 6 {
					t.Errorf("%d answers were 429: the run went on after the quota was used up", n)
				}
			},
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
			checkCreditsReported(t, h, ar, h.srv.Stats().CreditsSpent-creditsBefore)
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

// badRow is a fault-matrix row where a share of the 200 answers are bad
// (see sandbox.BadAnswer): those calls fail with kind, after the work was
// done and paid, so an enrichment among them may be charged again.
func badRow(name string, bad sandbox.BadAnswer, kind string) faultRow {
	return faultRow{
		name:     name,
		faults:   func() sandbox.Faults { return sandbox.Faults{Bad: bad, BadShare: 0.15, Seed: 17} },
		wantExit: -1, failKinds: []string{kind},
		maybeChargedTwice: true,
		check: func(t *testing.T, h *harness, ar *applyRun) {
			if h.srv.Stats().Faults[sandbox.FaultBad] == 0 {
				t.Errorf("no call got a bad answer: the row tests nothing")
			}
			h.checkStateTrue()
		},
	}
}

// checkStateTrue checks every person in state against the sandbox's
// member of that page name: a bad answer taken for a good one shows up as
// a missing or another person's name, network ID or e-mail.
func (h *harness) checkStateTrue() {
	h.t.Helper()
	st := h.loadState()
	for _, p := range st.People {
		m, ok := h.srv.Member(p.Lead.PageName)
		if !ok {
			h.t.Errorf("state has person %q (%q), whom the service does not know", p.ID, p.Lead.PageName)
			continue
		}
		// A person known only from a profile read has no network ID until
		// an enrichment brings one: missing is not wrong.
		if (p.Lead.NetworkID != "" && p.Lead.NetworkID != m.NetworkID) || p.Lead.FullName != m.FullName() {
			h.t.Errorf("person %s in state is %q %q, the service says %q %q", m.PageName, p.Lead.NetworkID, p.Lead.FullName, m.NetworkID, m.FullName())
		}
		if e := p.Enrichment; e != nil && (e.Result.Email != m.Email || e.Result.ValidationStatus != m.EmailStatus || e.Result.PageName != m.PageName) {
			h.t.Errorf("enrichment of %s in state is %q (%q, %q), the service says %q (%q)", m.PageName, e.Result.Email, e.Result.ValidationStatus, e.Result.PageName, m.Email, m.EmailStatus)
		}
		if pr := p.Profile; pr != nil && pr.FullName != m.FullName() {
			h.t.Errorf("profile of %s in state is %q, the service says %q", m.PageName, pr.FullName, m.FullName())
		}
	}
	for addr, rec := range st.Profiles {
		if rec == nil {
			h.t.Errorf("%s is in state without a record", addr)
		}
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
		if e.Hint == "" {
			t.Errorf("%s failed without a hint of what to do: %s", e.key(), e.Error)
		}
		// A call still waiting (for the pace, or to retry a 429 that a busy
		// machine's timing drew) when the run stops is never sent: nothing
		// charged, made by the next apply. Any stopping row may have one.
		if e.ErrorKind == "not sent" && ar.summary.Stopped != "" {
			continue
		}
		if !contains(row.failKinds, e.ErrorKind) {
			t.Errorf("%s failed with %q (%s), want one of %q", e.key(), e.ErrorKind, e.Error, row.failKinds)
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

// checkCreditsReported checks the credits the run reported against those
// the sandbox charged: the reported ones were all charged, and the rest are
// enrichments whose outcome the run reported unknown (an answer lost or
// unusable), never failures that charged nothing (500, 403, 429).
func checkCreditsReported(t *testing.T, h *harness, ar *applyRun, charged int) {
	t.Helper()
	if ar.summary == nil {
		return
	}
	unknown := 0
	for _, e := range ar.errors {
		if e.Call.Kind == "enrich" && contains([]string{"network error", "timeout", "undecodable answer", "answer for another person"}, e.ErrorKind) {
			unknown++
		}
	}
	if got := ar.summary.Credits; got > charged || charged > got+unknown {
		t.Errorf("the run reported %d credits (and %d enrichments with an unknown outcome); the service charged %d", got, unknown, charged)
	}
	// State keeps each of them (one credit each here), for the next plan.
	if st := h.loadState(); st.Usage.CreditsUnknown != unknown || len(st.UnknownEnrichments) != unknown {
		t.Errorf("state counts %d credits of unknown outcome (%d people); the run reported %d", st.Usage.CreditsUnknown, len(st.UnknownEnrichments), unknown)
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

// snapshot is the content of the files a failed command must not change.
type snapshot map[string][]byte

func (h *harness) snapshot(rel ...string) snapshot {
	h.t.Helper()
	s := snapshot{}
	for _, r := range rel {
		b, err := os.ReadFile(filepath.Join(h.dir, r))
		if err != nil {
			h.t.Fatalf("snapshot: %v", err)
		}
		s[r] = b
	}
	return s
}

// unchanged fails the test when a file of s changed.
func (h *harness) unchanged(s snapshot) {
	h.t.Helper()
	for r, want := range s {
		got, err := os.ReadFile(filepath.Join(h.dir, r))
		if err != nil {
			h.t.Errorf("%s: %v (it was there before)", r, err)
			continue
		}
		if !bytes.Equal(got, want) {
			h.t.Errorf("%s changed", r)
		}
	}
}

// callsSince is the number of calls the sandbox saw since stats0.
func (h *harness) callsSince(s0 sandbox.Stats) int { return h.srv.Stats().Calls - s0.Calls }

// fill writes zeros to a new file in dir until the file system is full.
func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "ballast")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	// Fill the last partial block too, byte-sized.
	for {
		if _, err := f.Write(buf[:1]); err != nil {
			return path
		}
	}
}

// TestStateFolderNotWritable: apply on a state folder it cannot write stops
// before any call with an error naming the file and saying what to do, and
// changes nothing.
func TestStateFolderNotWritable(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes against a sandbox; skipped with -short")
	}
	t.Run("read-only folder", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, sandbox.Options{Seed: 4}, fmt.Sprintf(faultConfig, "10s"))
		if r := h.run("apply", "--auto-approve", "--target", `search.eng["Berlin"]`); r.code != 0 {
			t.Fatalf("first apply:\n%s", r)
		}
		snap := h.snapshot(".leadsync/state.json", "out/leads.xlsx")
		sdir := filepath.Join(h.dir, ".leadsync")
		switch {
		case os.Geteuid() != 0:
			// Not root: the permission bits are enough.
			if err := os.Chmod(sdir, 0o500); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(sdir, 0o700) })
		case !mountReadOnly(t, sdir):
			t.Skip("root ignores permission bits and this process cannot mount a read-only folder")
		}
		s0 := h.srv.Stats()
		r := h.run("apply", "--auto-approve")
		if r.code != 1 {
			t.Fatalf("want exit 1:\n%s", r)
		}
		for _, want := range []string{"state.json.lock", "make the folder writable"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("the error does not say %q:\n%s", want, r)
			}
		}
		if n := h.callsSince(s0); n != 0 {
			t.Errorf("%d calls made although no result could be kept", n)
		}
		h.unchanged(snap)
	})
	t.Run("state folder is a file", func(t *testing.T) {
		t.Parallel()
		cfg := strings.Replace(fmt.Sprintf(faultConfig, "10s"), "api {", "leadsync {\n  state_path = \"blocked/state.json\"\n}\n\napi {", 1)
		h := newHarness(t, sandbox.Options{Seed: 4}, cfg)
		writeFile(t, filepath.Join(h.dir, "blocked"), "a file where the state folder should be\n")
		s0 := h.srv.Stats()
		r := h.run("apply", "--auto-approve")
		if r.code != 1 || !strings.Contains(r.stderr, filepath.Join("blocked", "state.json")) || !strings.Contains(r.stderr, "not a directory") {
			t.Errorf("want exit 1 and an error naming blocked/state.json:\n%s", r)
		}
		if n := h.callsSince(s0); n != 0 {
			t.Errorf("%d calls made although no result could be kept", n)
		}
	})
}

// TestDiskFullMidRun fills the state's file system in the middle of an
// apply: the run stops at the first result it cannot record, says the disk
// is full, keeps the last good state and spreadsheet; after space is freed
// the next apply finishes without repeating any call it reported done.
func TestDiskFullMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes against a sandbox; skipped with -short")
	}
	t.Parallel()
	h := newHarness(t, sandbox.Options{Seed: 6}, fmt.Sprintf(faultConfig, "10s"))
	sdir := filepath.Join(h.dir, ".leadsync")
	if !mountTmpfs(t, sdir, 256<<10) {
		t.Skip("cannot mount a small file system here")
	}
	if r := h.run("apply", "--auto-approve", "--target", `search.eng["Berlin"]`); r.code != 0 {
		t.Fatalf("first apply:\n%s", r)
	}
	snap := h.snapshot(".leadsync/state.json", "out/leads.xlsx")
	var ballast string
	done := 0
	ar := h.applyJSON(func(ev applyEvent) {
		if ev.MessageType == "call_done" {
			if done++; done == 2 {
				ballast = fill(t, sdir)
			}
		}
	})
	if ar.code != 1 {
		t.Fatalf("want exit 1 when the disk is full:\n%s", ar.result)
	}
	for _, want := range []string{"the disk is full", "free some space", "state.json"} {
		if !strings.Contains(ar.stderr+ar.stdout, want) {
			t.Errorf("the output does not say %q:\n%s", want, ar.result)
		}
	}
	noStackTrace(t, ar.result)
	h.unchanged(snap)
	if len(ar.done) >= 22 {
		t.Fatalf("every call completed; the disk never filled:\n%s", ar.result)
	}

	// Free the space: everything reported done is kept (journal), the rest
	// is done now.
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	h.checkDoneInState(ar)
	ar2 := h.applyJSON(nil)
	if ar2.code != 0 {
		t.Fatalf("apply after freeing space:\n%s", ar2.result)
	}
	for k := range ar2.started {
		if ar.done[k] {
			t.Errorf("%s was reported done before the disk filled and was called again", k)
		}
	}
	if twice := h.enrichedTwice(); len(twice) > 1 {
		// At most the one enrichment whose result could not be recorded.
		t.Errorf("charged twice: %v", twice)
	}
	if r := h.run("plan", "--detailed-exitcode"); r.code != 0 {
		t.Errorf("work left after the second apply:\n%s", r)
	}
}

// TestDiskFullExport fills the spreadsheet's file system: apply keeps every
// result in state, says which spreadsheet it could not write and why, and
// the previous spreadsheet stays whole; once space is freed, export writes
// it without any call.
func TestDiskFullExport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes against a sandbox; skipped with -short")
	}
	t.Parallel()
	h := newHarness(t, sandbox.Options{Seed: 8}, fmt.Sprintf(faultConfig, "10s"))
	out := filepath.Join(h.dir, "out")
	if !mountTmpfs(t, out, 128<<10) {
		t.Skip("cannot mount a small file system here")
	}
	if r := h.run("apply", "--auto-approve", "--target", `search.eng["Berlin"]`); r.code != 0 {
		t.Fatalf("first apply:\n%s", r)
	}
	snap := h.snapshot("out/leads.xlsx")
	ballast := fill(t, out)
	ar := h.applyJSON(nil)
	if ar.code != 1 {
		t.Fatalf("want exit 1 when the spreadsheet cannot be written:\n%s", ar.result)
	}
	if !strings.Contains(ar.stderr, "leads.xlsx") || !strings.Contains(ar.stderr, "no space left") {
		t.Errorf("the error does not name the spreadsheet and the full disk:\n%s", ar.result)
	}
	h.unchanged(snap)
	h.checkDoneInState(ar)
	if ar.summary == nil || ar.summary.Failed != 0 || ar.summary.Succeeded == 0 {
		t.Errorf("the calls should all have succeeded:\n%s", ar.result)
	}
	os.Remove(ballast)
	s0 := h.srv.Stats()
	if r := h.run("export"); r.code != 0 {
		t.Fatalf("export after freeing space:\n%s", r)
	}
	if r := h.run("plan", "--detailed-exitcode"); r.code != 0 {
		t.Errorf("work left:\n%s", r)
	}
	if st := h.srv.Stats(); st.ByOp[sandbox.OpSearch]+st.ByOp[sandbox.OpEnrich]+st.ByOp[sandbox.OpPage] != s0.ByOp[sandbox.OpSearch]+s0.ByOp[sandbox.OpEnrich]+s0.ByOp[sandbox.OpPage] {
		t.Errorf("export or plan made a paid call")
	}
	h.unchangedNot(snap)
}

// unchangedNot fails when a file of s is still as it was.
func (h *harness) unchangedNot(s snapshot) {
	h.t.Helper()
	for r, old := range s {
		got, err := os.ReadFile(filepath.Join(h.dir, r))
		if err != nil || bytes.Equal(got, old) {
			h.t.Errorf("%s was not rewritten (%v)", r, err)
		}
	}
}

// TestExportPathBlocked: an export whose folder is a file fails with an
// error naming it, after every result is safe in state; fixing the path and
// running export writes it with no call.
func TestExportPathBlocked(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes against a sandbox; skipped with -short")
	}
	t.Parallel()
	h := newHarness(t, sandbox.Options{Seed: 8}, fmt.Sprintf(faultConfig, "10s"))
	writeFile(t, filepath.Join(h.dir, "out"), "a file where the export folder should be\n")
	ar := h.applyJSON(nil)
	if ar.code != 1 || !strings.Contains(ar.stderr, filepath.Join("out", "leads.xlsx")) {
		t.Fatalf("want exit 1 and an error naming out/leads.xlsx:\n%s", ar.result)
	}
	h.checkDoneInState(ar)
	os.Remove(filepath.Join(h.dir, "out"))
	s0 := h.srv.Stats()
	if r := h.run("export"); r.code != 0 {
		t.Fatalf("export:\n%s", r)
	}
	if r := h.run("apply", "--auto-approve"); r.code != 0 || !strings.Contains(r.stdout, "No changes") {
		t.Errorf("apply after the export was fixed should have nothing to do:\n%s", r)
	}
	if st := h.srv.Stats(); st.ByOp[sandbox.OpEnrich] != s0.ByOp[sandbox.OpEnrich] || st.ByOp[sandbox.OpSearch] != s0.ByOp[sandbox.OpSearch] {
		t.Errorf("calls were repeated after a failed export")
	}
}

// TestConcurrentApplies starts two applies on one state: the second refuses
// at once with a message naming the holder of the lock (its pid and the
// lock ID), makes no call, and the first completes with a state that loads
// and holds everything, each search made once and nobody enriched twice.
// Then both are started at the same instant, several times: exactly one
// runs. A lock left by a killed run names the dead process and the command
// that removes it.
func TestConcurrentApplies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes against a sandbox; skipped with -short")
	}
	slow := sandbox.Options{Seed: 12, SearchLatency: [2]time.Duration{300 * time.Millisecond, 400 * time.Millisecond}}
	lockMsg := func(t *testing.T, r result, pid int) {
		t.Helper()
		for _, want := range []string{"the state is locked by", fmt.Sprintf("(pid %d)", pid), `for "apply"`, "lock ID", "Wait for that run to finish"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("the refusal does not say %q:\n%s", want, r)
			}
		}
	}
	// checkEnd checks the final state; extraSearches are searches that may
	// have been made twice (in flight when a run was killed).
	checkEnd := func(t *testing.T, h *harness, extraSearches int) {
		t.Helper()
		st := h.loadState()
		if len(st.Searches) != 3 || len(st.Profiles) != 1 {
			t.Errorf("state has %d searches and %d profiles, want 3 and 1", len(st.Searches), len(st.Profiles))
		}
		stats := h.srv.Stats()
		if n := stats.ByOp[sandbox.OpSearch]; n < 3 || n > 3+extraSearches {
			t.Errorf("%d searches made for 3 search instances (%d may repeat)", n, extraSearches)
		}
		if twice := h.enrichedTwice(); len(twice) > 0 {
			t.Errorf("charged twice: %v", twice)
		}
		if r := h.run("plan", "--detailed-exitcode"); r.code != 0 {
			t.Errorf("work left:\n%s", r)
		}
	}

	t.Run("second while the first runs", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, slow, fmt.Sprintf(faultConfig, "10s"))
		var second result
		var once sync.Once
		first := h.applyJSON(func(ev applyEvent) {
			if ev.MessageType == "call_start" {
				once.Do(func() { second = h.run("apply", "--auto-approve") })
			}
		})
		if first.code != 0 {
			t.Fatalf("the first apply failed:\n%s", first.result)
		}
		if second.code != 1 {
			t.Fatalf("the second apply should refuse:\n%s", second)
		}
		lockMsg(t, second, firstPID(t, first))
		checkEnd(t, h, 0)
	})

	t.Run("both at the same instant", func(t *testing.T) {
		t.Parallel()
		for round := 0; round < 3; round++ {
			h := newHarness(t, slow, fmt.Sprintf(faultConfig, "10s"))
			cmds := []*exec.Cmd{h.command("apply", "--auto-approve"), h.command("apply", "--auto-approve")}
			outs := make([]*bytes.Buffer, 2)
			errs := make([]*bytes.Buffer, 2)
			for i, c := range cmds {
				outs[i], errs[i] = &bytes.Buffer{}, &bytes.Buffer{}
				c.Stdout, c.Stderr = outs[i], errs[i]
			}
			for _, c := range cmds {
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
			}
			var rs [2]result
			for i, c := range cmds {
				err := c.Wait()
				rs[i] = result{args: []string{"apply", "--auto-approve"}, stdout: outs[i].String(), stderr: errs[i].String()}
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					rs[i].code = ee.ExitCode()
				}
				noStackTrace(t, rs[i])
			}
			if rs[0].code+rs[1].code != 1 {
				t.Fatalf("round %d: want one apply to run and one to refuse:\n%s\n%s", round, rs[0], rs[1])
			}
			win, lose := 0, 1
			if rs[0].code == 1 {
				win, lose = 1, 0
			}
			lockMsg(t, rs[lose], cmds[win].Process.Pid)
			checkEnd(t, h, 0)
		}
	})

	t.Run("lock of a killed run", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, slow, fmt.Sprintf(faultConfig, "10s"))
		h.applyKilled(t, 1)
		_ = lockID(t, h)
		// The holder is known dead (this host, its pid gone): the next
		// apply removes its lock with a one-line note and finishes the work.
		r := h.run("apply", "--auto-approve")
		if r.code != 0 || !strings.Contains(r.stderr, "Note: removed the stale state lock") || !strings.Contains(r.stderr, "no longer runs on this host") {
			t.Fatalf("apply over a dead run's lock: want exit 0 and a note:\n%s", r)
		}
		if strings.Count(r.stderr, "stale state lock") != 1 {
			t.Errorf("the note is not one line:\n%s", r.stderr)
		}
		// The searches in flight at the kill (parallelism 3, one done) may
		// be made again; nobody is enriched before the searches end.
		checkEnd(t, h, 2)
	})
}

// firstPID is the pid of an apply run, from its lock as the refusal of the
// second apply quoted it: the run's own process.
func firstPID(t *testing.T, ar *applyRun) int {
	t.Helper()
	if ar.pid == 0 {
		t.Fatal("the apply run has no pid")
	}
	return ar.pid
}

// answerTransport answers every request with one fixed 200 JSON body.
type answerTransport []byte

func (b answerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(b)),
		ContentLength: int64(len(b)), Request: req,
	}, nil
}

// FuzzAnswerIntoState takes any answer the service might give to a search,
// a profile read or an enrichment, decoded by the real client, through the
// path apply uses: journal first, then the state, then a commit; and checks
// that whatever the journal accepted the state accepts too, and that the
// state file written then loads again with the same people. A service
// answer must never make the state unloadable: that would lose paid calls.
func FuzzAnswerIntoState(f *testing.F) {
	for _, s := range []string{
		`[]`, `[{}]`, `[{"pageName":"A_B","networkId":"1","fullName":"A B"},{"pageName":"A_B","networkId":"2"}]`,
		`[{"networkId":"1"},{"networkId":"1","pageName":"X"}]`, `[{"pageName":"a\u0000b","fullName":"\ud800"}]`,
		`{"pageName":"A_B","networkId":"1","email":"a@b.c","validationStatus":"valid","creditBalance":3}`,
		`{"pageName":"","networkId":""}`, `{"fullName":"no ids"}`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := api.New(api.Options{BaseURL: "https://api.example", Key: "k", MaxRetries: -1,
			HTTPClient: &http.Client{Transport: answerTransport(body)}, Pacer: api.NewPacer(1e9, 8, nil)})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		var events []*state.Event
		if res, err := c.Search(ctx, api.Gen1, api.SearchRequest{Params: map[string]any{"keywords": "CTO"}}); err == nil {
			events = append(events, &state.Event{Kind: state.EventSearch, Address: `search.a["x"]`, Search: &state.SearchEvent{
				Generation: api.Gen1, Request: json.RawMessage(`{"keywords":"CTO"}`), Leads: res.Leads, MaxResults: 3}})
		}
		if p, err := c.Page(ctx, api.Gen1, api.PageRequest{PageName: "A_B"}); err == nil {
			events = append(events, &state.Event{Kind: state.EventProfile, Address: "profile.p", Profile: &state.ProfileEvent{
				Generation: api.Gen1, Request: json.RawMessage(`{"pageName":"A_B"}`), PageName: "A_B", Profile: *p}})
		}
		if en, err := c.Enrich(ctx, api.PageRequest{PageName: "A_B"}); err == nil {
			events = append(events, &state.Event{Kind: state.EventEnrich, Address: "enrich.e", Enrich: &state.EnrichEvent{
				PersonID: "x", Credits: 1, Result: *en}})
		}
		store := local.NewStore(filepath.Join(t.TempDir(), "state.json"))
		st, err := store.Load()
		if err != nil {
			t.Fatal(err)
		}
		j, err := store.OpenJournal(st)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range events {
			ev.At = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
			if err := j.Append(ev); err != nil {
				continue // refused before anything was written
			}
			if err := st.Fold(*ev); err != nil {
				t.Fatalf("the journal accepted a %s event the state cannot apply: %v", ev.Kind, err)
			}
		}
		// A crash now: the journal alone must replay.
		replayed, err := store.Load()
		if err != nil {
			t.Fatalf("the journal does not replay: %v", err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		if err := store.Commit(st); err != nil {
			t.Fatalf("commit: %v", err)
		}
		back, err := store.Load()
		if err != nil {
			t.Fatalf("the state written from a service answer does not load: %v", err)
		}
		if len(back.People) != len(st.People) || len(replayed.People) != len(st.People) {
			t.Fatalf("people: %d in memory, %d replayed from the journal, %d loaded back", len(st.People), len(replayed.People), len(back.People))
		}
	})
}
