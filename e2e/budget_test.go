package e2e

// A hard budget holds across processes: two applies at the same time, in
// two workspaces of one backend, on one API account, never spend more than
// leadsync { budget } allows together, on the local backend (one working
// copy's ledger file) and on PostgreSQL (the ledger table).

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/testenv"
)

// budgetConfig searches ten engineers in a city of each workspace and
// enriches them all, under a hard budget of credits; backendBlock is
// the leadsync block's backend (none: the local state file).
func budgetConfig(backendBlock string, credits int) string {
	return fmt.Sprintf(`
variable "sandbox_url" {
  type = string
}

leadsync {
  %s
  budget {
    credits_per_month = %d
    enforce           = "hard"
  }
}

api {
  base_url    = var.sandbox_url
  rate_limit  = 20
  parallelism = 3
}

search "eng" {
  keywords    = "Engineer"
  city        = leadsync.workspace == "dach" ? "Berlin" : "Hamburg"
  max_results = 10
}

enrich "all" {
  from = [search.eng]
}
`, backendBlock, credits)
}

func TestBudgetHeldByTwoProcesses(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes")
	t.Parallel()
	onBothBackends(t, func(t *testing.T, be string) {
		h := newHarness(t, sandbox.Options{
			Seed: 5, RateLimit: 20, RateWindow: time.Second / 20,
			SearchLatency: [2]time.Duration{20 * time.Millisecond, 60 * time.Millisecond},
			ReadLatency:   [2]time.Duration{10 * time.Millisecond, 40 * time.Millisecond},
		}, "")
		block := ""
		if be == "pg" {
			block = fmt.Sprintf("backend \"pg\" {\n    schema_name = %q\n  }", h.usePG())
		}
		const budget = 12
		h.writeConfig(budgetConfig(block, budget))
		for _, ws := range []string{"dach", "uk"} {
			if r := h.run("workspace", "new", ws); r.code != 0 {
				t.Fatal(r)
			}
		}
		// Each plan alone fits: nothing spent yet, up to 10 credits.
		for _, ws := range []string{"dach", "uk"} {
			if r := h.run("plan", "--workspace", ws); r.code != 0 || !strings.Contains(r.stdout, "Budget: 0 of 12 credits spent this billing month; this plan up to 10 credits -> at most 10 credits.") {
				t.Fatalf("plan in %s:\n%s", ws, r)
			}
		}
		// Both at once, from plans saved before either ran: together
		// they could spend 20. However they interleave, the sandbox
		// never charges more than the budget: a run is refused before
		// any call (its saved plan no longer fits what the other spent)
		// or stopped before the call that would pass it.
		for _, ws := range []string{"dach", "uk"} {
			if r := h.run("plan", "--workspace", ws, "--out", ws+".plan"); r.code != 0 {
				t.Fatal(r)
			}
		}
		before := h.srv.Stats()
		var wg sync.WaitGroup
		results := make([]result, 2)
		for i, ws := range []string{"dach", "uk"} {
			s := h.startApply("--workspace", ws, ws+".plan")
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i] = s.wait()
			}()
		}
		wg.Wait()
		spent := h.srv.Stats().CreditsSpent - before.CreditsSpent
		if spent > budget {
			t.Fatalf("the sandbox charged %d credits; the budget is %d\n%s\n%s", spent, budget, results[0], results[1])
		}
		held := 0
		for _, r := range results {
			out := r.output()
			if strings.Contains(out, "the monthly budget would be passed") || strings.Contains(out, "the saved plan may pass the monthly budget now") {
				held++
			} else if r.code != 0 {
				t.Fatalf("a run failed otherwise:\n%s", r)
			}
		}
		if held == 0 {
			t.Fatalf("charged %d of a budget of %d, and neither run was held back by it\n%s\n%s", spent, budget, results[0], results[1])
		}
		// The ledger holds what was charged, not a credit more: the
		// reservations of calls never sent were released.
		r := h.run("plan", "--workspace", "dach", "--json")
		want := fmt.Sprintf(`"spent": %d`, spent)
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("plan after the race: want %s in the budget (exit %d)\n%s", want, r.code, r)
		}
	})
}

// budgetSpent is what plan --json says the month's ledger holds, in
// credits.
func budgetSpent(t *testing.T, h *harness) int {
	t.Helper()
	r := h.run("plan", "--json")
	var doc struct {
		Budget *struct {
			Credits *struct {
				Spent int `json:"spent"`
			} `json:"credits"`
		} `json:"budget"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || doc.Budget == nil || doc.Budget.Credits == nil {
		t.Fatalf("plan --json has no budget of credits (%v):\n%s", err, r)
	}
	return doc.Budget.Credits.Spent
}

// TestBudgetOfAKilledApply: an apply that reserved ten enrichments (its
// parallelism) while the client's rate limit let them out one by one is
// killed (SIGKILL) after its first enrichment came back. The ledger
// keeps what was charged and what may have been (the calls in flight:
// unknown outcomes), not the reservations of the calls never sent: the
// next plan says so, and after a full apply the ledger holds what the
// sandbox charged, on the local backend (ledger.json) and on PostgreSQL.
func TestBudgetOfAKilledApply(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes")
	t.Parallel()
	onBothBackends(t, func(t *testing.T, be string) {
		h := newHarness(t, sandbox.Options{Seed: 9}, "")
		block := ""
		if be == "pg" {
			block = fmt.Sprintf("backend \"pg\" {\n    schema_name = %q\n  }", h.usePG())
		}
		// The killed run lets out one call a second; the full apply
		// after it runs at the usual pace.
		config := func(rate int) string {
			return fmt.Sprintf(`
variable "sandbox_url" {
  type = string
}

leadsync {
  %s
  budget {
    credits_per_month = 50
  }
}

api {
  base_url    = var.sandbox_url
  rate_limit  = %d
  parallelism = 10
}

search "eng" {
  keywords    = "Engineer"
  city        = "Berlin"
  max_results = 30
}

enrich "all" {
  from  = [search.eng]
  limit = 20
}
`, block, rate)
		}
		h.writeConfig(config(1))
		s := h.startApply()
		for ev := range s.events {
			if ev.MessageType == "call_done" && ev.Call.Kind == "enrich" {
				s.kill()
				break
			}
		}
		killed := s.wait()
		charged := h.srv.Stats().CreditsSpent
		unknown := len(h.loadState().UnknownEnrichments)
		if charged == 0 || charged+unknown >= 10 {
			t.Fatalf("the killed apply was charged %d credits with %d unknown outcomes; want a few of its 10 reservations\n%s", charged, unknown, killed)
		}
		if got := budgetSpent(t, h); got < charged || got > charged+unknown {
			t.Fatalf("after the kill the budget says %d credits spent; the sandbox charged %d, %d more of unknown outcome", got, charged, unknown)
		}
		h.writeConfig(config(20))
		if r := h.run("apply", "--auto-approve"); r.code != 0 {
			t.Fatal(r)
		}
		charged = h.srv.Stats().CreditsSpent
		if got := budgetSpent(t, h); got < charged || got > charged+unknown {
			t.Fatalf("after a full apply the budget says %d credits spent; the sandbox charged %d (%d calls of the killed run of unknown outcome)", got, charged, unknown)
		}
	})
}
