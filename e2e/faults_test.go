package e2e

// Faults of the service end in a defined way, say what to do, and lose
// nothing: the fault matrix, one kind of fault per row.

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/testenv"
)

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
	testenv.SkipIfShort(t, "runs real processes against a sandbox")
	t.Parallel()
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
				// A date on the real clock: leadsync, another process,
				// reads Retry-After against its own (nothing is asserted
				// about how long it waited).
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
	// The 429 storms, which mostly wait (4 backoffs of a second, one
	// after the other), start together in the test's slot. As parallel
	// subtests they waited behind the scripts' 130 and ran last, alone
	// at the package's end. The other rows compute more: parallel
	// subtests, one slot each.
	var storms []faultRow
	var names []string
	for _, row := range rows {
		name := strings.ReplaceAll(row.name, " ", "_")
		if row.faults != nil && row.faults().Storm429 > 0 {
			storms, names = append(storms, row), append(names, name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			runFaultRow(t, row)
		})
	}
	together(t, names, func(t *testing.T, i int) { runFaultRow(t, storms[i]) })
}

// runFaultRow is one row of TestFaultMatrix: the faulted apply and its
// checks, then the apply once the fault is cleared.
func runFaultRow(t *testing.T, row faultRow) {
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
	callsAddUp(t, ar)
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
		if !slices.Contains(row.failKinds, e.ErrorKind) {
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

// callsAddUp fails the test unless the calls the summary says were made
// are those that succeeded plus those that failed, and no error says "not
// sent" twice.
func callsAddUp(t *testing.T, ar *applyRun) {
	t.Helper()
	if s := ar.summary; s != nil && s.Calls != s.Succeeded+s.Failed {
		t.Errorf("%d calls made, %d succeeded, %d failed: they do not add up", s.Calls, s.Succeeded, s.Failed)
	}
	if strings.Contains(ar.stdout+ar.stderr, "not sent: not sent") {
		t.Errorf("an error says \"not sent\" twice:\n%s", ar.result)
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
		if e.Call.Kind == "enrich" && slices.Contains([]string{"network error", "timeout", "undecodable answer", "answer for another person"}, e.ErrorKind) {
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

// TestPlanStopsAtUsedUpQuota: plan's billing call answered 429 "monthly
// quota exhausted" is not retried (it used to be, 7 times, for about a
// minute): one call, exit 1, the quota hint.
func TestPlanStopsAtUsedUpQuota(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes against a sandbox")
	t.Parallel()
	h := newHarness(t, sandbox.Options{Seed: 2, Quota: -1, Faults: sandbox.Faults{QuotaAs429: true}}, fmt.Sprintf(faultConfig, "10s"))
	r := h.run("plan")
	if r.code != 1 || !strings.Contains(r.stderr+r.stdout, "wait for the next invoicing period") {
		t.Fatalf("plan with the quota used up: want exit 1 and the quota hint:\n%s", r)
	}
	if n := h.srv.Stats().Calls; n != 1 {
		t.Errorf("the sandbox saw %d calls, want 1 (no retry of a used-up quota)", n)
	}
}
