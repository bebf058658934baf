package e2e

// Each person is enriched at most once across the workspaces of a
// backend, even when two applies run at the same moment: an apply claims
// a person across the workspaces before it pays for them, and a person
// another workspace's running apply holds is waited for and copied, on the
// local backend (the working copy's claims file) and on PostgreSQL (the
// claims table). A killed apply's claim blocks nobody.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/testenv"
)

// claimsConfig searches var.kw in Berlin, keeping the first var.n, and
// enriches them all, at var.par calls at once; backendBlock is the
// leadsync block's backend (none: the local state file). The workspaces
// dach and uk take overlapping people: the first n of one search.
func claimsConfig(backendBlock string) string {
	return fmt.Sprintf(`
variable "sandbox_url" {
  type = string
}
variable "kw" {
  type    = string
  default = "Engineer"
}
variable "n" {
  type    = number
  default = 1
}
variable "par" {
  type    = number
  default = 1
}

leadsync {
  %s
}

api {
  base_url    = var.sandbox_url
  rate_limit  = 20
  parallelism = var.par
}

search "people" {
  keywords    = var.kw
  city        = "Berlin"
  max_results = var.n
}

enrich "all" {
  from = [search.people]
}
`, backendBlock)
}

// claimsSeed seeds the rounds of TestClaimsEnrichedOnceAcrossWorkspacesAtOnce;
// CLAIMS_SEED=n tries others.
func claimsSeed(t *testing.T) uint64 {
	if s := os.Getenv("CLAIMS_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("CLAIMS_SEED=%q: %v", s, err)
		}
		return n
	}
	return 19
}

// claimsHarness is a project on backend be ("local" or "pg") with the
// workspaces dach and uk, its sandbox's reads held by the gate when
// gated (else answered in 20 to 80 ms, so that enrichments overlap).
func claimsHarness(t *testing.T, be string, gated bool) (*harness, *answerGate) {
	opts := sandbox.Options{Seed: 19, RateLimit: 40, RateWindow: time.Second / 40,
		ReadLatency: [2]time.Duration{20 * time.Millisecond, 80 * time.Millisecond}}
	var g *answerGate
	if gated {
		g = holdReads(&opts)
		t.Cleanup(g.open)
	}
	h := newHarness(t, opts, "")
	block := ""
	if be == "pg" {
		block = fmt.Sprintf("backend \"pg\" {\n    schema_name = %q\n  }", h.usePG())
	}
	h.writeConfig(claimsConfig(block))
	for _, ws := range []string{"dach", "uk"} {
		if r := h.run("workspace", "new", ws); r.code != 0 {
			t.Fatal(r)
		}
	}
	return h, g
}

// claimsVars are the variables of one workspace's run.
func claimsVars(kw string, n, par int) []string {
	return []string{"--var", "kw=" + kw, "--var", fmt.Sprintf("n=%d", n), "--var", fmt.Sprintf("par=%d", par)}
}

// claimsSummary is what the summary event of apply --json says of
// credits, copies and claims.
type claimsSummary struct {
	Credits          int            `json:"credits"`
	Enriched         int            `json:"enriched"`
	Reused           map[string]int `json:"reused"`
	ClaimedElsewhere []struct {
		Workspace string `json:"workspace"`
		Copied    int    `json:"copied"`
		Left      int    `json:"left"`
	} `json:"claimed_elsewhere"`
}

// summaryOf parses the summary event of an apply --json's output.
func summaryOf(t *testing.T, r result) claimsSummary {
	t.Helper()
	for _, line := range strings.Split(r.stdout, "\n") {
		if !strings.Contains(line, `"message_type":"summary"`) {
			continue
		}
		var s claimsSummary
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("summary: %v\n%s", err, line)
		}
		return s
	}
	t.Fatalf("no summary:\n%s", r)
	return claimsSummary{}
}

// enrichCounts is how many times the sandbox enriched each page name.
func (h *harness) enrichCounts() map[string]int {
	out := map[string]int{}
	for page, n := range h.srv.Stats().Enriched {
		out[page] = n
	}
	return out
}

// TestClaimsEnrichedOnceAcrossWorkspacesAtOnce: rounds of two applies started
// at the same instant in dach and uk on overlapping people (seeded: how
// many people each takes, how many calls each makes at once). The sandbox
// enriches each person of either once; what one paid for, the other
// copied (at once, or waiting for the other's call); the credits of the
// two add up to the people; afterwards neither has anything to do.
func TestClaimsEnrichedOnceAcrossWorkspacesAtOnce(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes")
	t.Parallel()
	seed := claimsSeed(t)
	onBothBackends(t, func(t *testing.T, be string) {
		h, _ := claimsHarness(t, be, false)
		rng := rand.New(rand.NewPCG(seed, 0xc1a1))
		copiedByClaim := 0
		for round, kw := range []string{"Engineer", "Manager", "Developer", "Consultant"} {
			n := map[string]int{"dach": 4 + rng.IntN(9), "uk": 4 + rng.IntN(9)}
			par := map[string]int{"dach": 1 + rng.IntN(4), "uk": 1 + rng.IntN(4)}
			before, spentBefore := h.enrichCounts(), h.srv.Stats().CreditsSpent
			results := map[string]result{}
			var mu sync.Mutex
			var wg sync.WaitGroup
			for _, ws := range []string{"dach", "uk"} {
				s := h.startApply(append([]string{"--workspace", ws}, claimsVars(kw, n[ws], par[ws])...)...)
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := s.wait()
					mu.Lock()
					results[ws] = r
					mu.Unlock()
				}()
			}
			wg.Wait()
			credits := 0
			for ws, r := range results {
				if r.code != 0 {
					t.Fatalf("round %d (%s, %v, parallel %v): apply in %s failed:\n%s", round, kw, n, par, ws, r)
				}
				s := summaryOf(t, r)
				credits += s.Credits
				for _, c := range s.ClaimedElsewhere {
					copiedByClaim += c.Copied
					if c.Left > 0 {
						t.Errorf("round %d: %s left %d people of %s's apply for the next apply; its calls take milliseconds", round, ws, c.Left, c.Workspace)
					}
				}
			}
			after := h.enrichCounts()
			if spent := h.srv.Stats().CreditsSpent - spentBefore; spent != credits {
				t.Errorf("round %d (%s, %v, parallel %v): the sandbox charged %d credits, the summaries say %d", round, kw, n, par, spent, credits)
			}
			people := 0
			for page, k := range after {
				if d := k - before[page]; d > 0 {
					people++
					if d != 1 {
						t.Errorf("round %d (%s, %v, parallel %v): the sandbox enriched %s %d times", round, kw, n, par, page, d)
					}
				}
			}
			union := max(n["dach"], n["uk"])
			if people != union || credits != union {
				t.Errorf("round %d (%s, %v, parallel %v): %d people enriched by the sandbox, %d credits in the summaries; want %d (every person of either, once)\n%s\n%s",
					round, kw, n, par, people, credits, union, results["dach"], results["uk"])
			}
			for _, ws := range []string{"dach", "uk"} {
				if r := h.run(append([]string{"plan", "--detailed-exitcode", "--workspace", ws}, claimsVars(kw, n[ws], par[ws])...)...); r.code != 0 {
					t.Errorf("round %d: %s has more to do after the race (exit %d):\n%s", round, ws, r.code, r)
				}
			}
		}
		t.Logf("seed %d: %d people copied after waiting for the other workspace's call", seed, copiedByClaim)
	})
}

// claimRace starts, in dach, an apply whose enrichment of the one person
// both workspaces take is held in flight by the gate (dach holds the
// claim), then an apply in uk, and returns both once uk says it waits for
// dach's call.
func claimRace(t *testing.T, h *harness, g *answerGate) (dach, uk *applyStream) {
	t.Helper()
	for _, ws := range []string{"dach", "uk"} {
		if r := h.run(append([]string{"plan", "--workspace", ws, "--out", ws + ".plan"}, claimsVars("Engineer", 1, 1)...)...); r.code != 0 {
			t.Fatal(r)
		}
	}
	g.arm()
	dach = h.startApply(append([]string{"--workspace", "dach"}, append(claimsVars("Engineer", 1, 1), "dach.plan")...)...)
	if !g.holding() {
		t.Fatal("dach's enrichment never reached the sandbox")
	}
	uk = h.startApply(append([]string{"--workspace", "uk"}, append(claimsVars("Engineer", 1, 1), "uk.plan")...)...)
	for ev := range uk.events {
		if ev.MessageType == "waiting" {
			if !strings.Contains(ev.Reason, "workspace dach's apply running now") {
				t.Fatalf("uk waits for %q, want dach's apply", ev.Reason)
			}
			return dach, uk
		}
		if ev.MessageType == "call_start" && ev.Call.Kind == "enrich" {
			t.Fatalf("uk sent the enrichment of %s while dach's call for them was in flight", ev.Call.Page)
		}
	}
	t.Fatalf("uk ended without waiting for dach:\n%s", uk.wait())
	return nil, nil
}

// TestClaimsPersonCopiedOnceRecorded: while dach's enrichment of a
// person is in flight, uk's apply waits for it instead of paying, and
// copies it once dach has recorded it: one enrich call in all.
func TestClaimsPersonCopiedOnceRecorded(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes")
	t.Parallel()
	onBothBackends(t, func(t *testing.T, be string) {
		h, g := claimsHarness(t, be, true)
		dach, uk := claimRace(t, h, g)
		g.open()
		rd, ru := dach.wait(), uk.wait()
		if rd.code != 0 || ru.code != 0 {
			t.Fatalf("applies failed:\n%s\n%s", rd, ru)
		}
		s := summaryOf(t, ru)
		if s.Credits != 0 || s.Reused["dach"] != 1 || len(s.ClaimedElsewhere) != 1 || s.ClaimedElsewhere[0].Workspace != "dach" || s.ClaimedElsewhere[0].Copied != 1 {
			t.Errorf("uk's summary %+v: want the one person copied from dach's running apply, no credit\n%s", s, ru)
		}
		if got := h.enrichCounts(); len(got) != 1 || total(got) != 1 {
			t.Errorf("the sandbox enriched %v; want one person once", got)
		}
		r := h.run(append([]string{"apply", "--auto-approve", "--workspace", "uk"}, claimsVars("Engineer", 1, 1)...)...)
		if r.code != 0 || !strings.Contains(r.stdout+r.stderr, "No changes") {
			t.Errorf("uk after the copy:\n%s", r)
		}
	})
}

// TestClaimsOfAKilledApply: dach's apply is killed while its enrichment of
// the person uk waits for is in flight (charged: the sandbox answers after
// the work). Its claim blocks nobody: uk takes it over and enriches the
// person itself (dach's call has an unknown outcome: it may have been
// charged, as after any kill), and dach's next apply copies uk's
// enrichment instead of paying a third time.
func TestClaimsOfAKilledApply(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes")
	t.Parallel()
	onBothBackends(t, func(t *testing.T, be string) {
		h, g := claimsHarness(t, be, true)
		dach, uk := claimRace(t, h, g)
		dach.kill()
		dach.wait()
		g.open()
		ru := uk.wait()
		if ru.code != 0 {
			t.Fatalf("uk after dach was killed:\n%s", ru)
		}
		if s := summaryOf(t, ru); s.Credits != 1 || len(s.ClaimedElsewhere) != 0 {
			t.Errorf("uk's summary %+v: want the person enriched here\n%s", s, ru)
		}
		counts := h.enrichCounts()
		if len(counts) != 1 || total(counts) != 2 {
			t.Fatalf("the sandbox enriched %v; want one person twice (dach's call, killed in flight, and uk's)", counts)
		}
		rd := h.run(append([]string{"apply", "--auto-approve", "--json", "--workspace", "dach"}, claimsVars("Engineer", 1, 1)...)...)
		if rd.code != 0 {
			t.Fatalf("dach's next apply:\n%s", rd)
		}
		if s := summaryOf(t, rd); s.Credits != 0 || s.Reused["uk"] != 1 {
			t.Errorf("dach's next apply %+v: want uk's enrichment copied\n%s", s, rd)
		}
		if got := total(h.enrichCounts()); got != 2 {
			t.Errorf("the sandbox enriched %d times in all; want 2", got)
		}
	})
}

// TestClaimsOfAKilledApplyBlockNobodyAfter: dach's apply is killed
// (SIGKILL) while its enrichment of the one person both workspaces take
// is in flight, before any other apply runs; its claim is left in the
// store (the local claims file, the pg claims table) with its holder
// dead. An apply started in uk afterwards is not held up by it: it
// enriches the person itself and ends, and a second apply there has
// nothing to do. The sandbox charged the killed call and uk's, and uk's
// summary says the one it paid for.
func TestClaimsOfAKilledApplyBlockNobodyAfter(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes")
	t.Parallel()
	onBothBackends(t, func(t *testing.T, be string) {
		h, g := claimsHarness(t, be, true)
		vars := claimsVars("Engineer", 1, 1)
		if r := h.run(append([]string{"plan", "--workspace", "dach", "--out", "dach.plan"}, vars...)...); r.code != 0 {
			t.Fatal(r)
		}
		g.arm()
		dach := h.startApply(append([]string{"--workspace", "dach"}, append(vars, "dach.plan")...)...)
		if !g.holding() {
			t.Fatal("dach's enrichment never reached the sandbox")
		}
		dach.kill()
		if r := dach.wait(); r.code != -1 {
			t.Fatalf("dach was not killed:\n%s", r)
		}
		if be == "local" {
			holders, _ := filepath.Glob(filepath.Join(h.dir, ".leadsync", local.ClaimsDir, "holder-*.lock"))
			if len(holders) != 1 {
				t.Fatalf("after the kill the claims folder holds %v; want the killed apply's holder file, left behind", holders)
			}
		}
		g.open()
		ru := h.run(append([]string{"apply", "--auto-approve", "--json", "--workspace", "uk"}, vars...)...)
		if ru.code != 0 {
			t.Fatalf("uk after dach was killed:\n%s", ru)
		}
		if s := summaryOf(t, ru); s.Credits != 1 || len(s.Reused) != 0 || len(s.ClaimedElsewhere) != 0 {
			t.Errorf("uk's summary %+v: want the person enriched here for 1 credit\n%s", s, ru)
		}
		counts := h.enrichCounts()
		if len(counts) != 1 || total(counts) != 2 || h.srv.Stats().CreditsSpent != 2 {
			t.Errorf("the sandbox enriched %v for %d credits; want one person twice (dach's killed call and uk's)", counts, h.srv.Stats().CreditsSpent)
		}
		if r := h.run(append([]string{"plan", "--detailed-exitcode", "--workspace", "uk"}, vars...)...); r.code != 0 {
			t.Errorf("uk has more to do after its apply (exit %d):\n%s", r.code, r)
		}
	})
}

// total adds the counts of m.
func total(m map[string]int) int {
	n := 0
	for _, k := range m {
		n += k
	}
	return n
}
