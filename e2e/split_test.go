package e2e

// A split search killed at any moment resumes without sending a completed
// sub-search again, and ends with exactly the people the sandbox matches.

import (
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/testenv"
)

// splitKillConfig splits every engineer in Germany and Austria by country,
// then by industry: 49 sub-searches, both countries being above the cap in
// the sandbox of seed 7.
const splitKillConfig = `
variable "sandbox_url" {
  type = string
}

api {
  base_url    = var.sandbox_url
  rate_limit  = 20
  parallelism = 3
}

search "eng" {
  keywords       = "Engineer"
  country_filter = ["Germany", "Austria"]
  max_results    = 20000
  split_by       = ["country_filter", "industry_filter"]
}
`

// TestKillSplitAnywhere kills apply with SIGKILL after every third
// completed sub-search of a split search, again and again: each time the
// state loads with the run under way, the next plan resumes it, and no
// completed sub-search is ever sent again (only those in flight at a kill
// may be). The end result is complete and finds exactly the people the
// sandbox says match.
func TestKillSplitAnywhere(t *testing.T) {
	testenv.SkipIfShort(t, "kills real processes")
	t.Parallel()
	h := newHarness(t, sandbox.Options{
		Seed: 7, RateLimit: 20, RateWindow: time.Second / 20,
		SearchLatency: [2]time.Duration{20 * time.Millisecond, 80 * time.Millisecond},
	}, splitKillConfig)

	completed := map[string]bool{}
	inFlightAtKill := 0
	kills := 0
	for round := 0; round < 40; round++ {
		s := h.startApply()
		inFlight := map[string]bool{}
		done, killed := 0, false
		for ev := range s.events {
			if ev.Call.Kind != "search" {
				continue
			}
			key := ev.Call.Address + " " + ev.Call.SubSearch
			switch ev.MessageType {
			case "call_start":
				if completed[key] {
					t.Errorf("round %d: sub-search %q sent again after it completed", round, key)
				}
				inFlight[key] = true
			case "call_done":
				delete(inFlight, key)
				completed[key] = true
				done++
			}
			if done >= 3 && !killed {
				s.kill()
				killed, kills = true, kills+1
			}
		}
		r := s.wait()
		if !killed {
			if r.code != 0 {
				t.Fatalf("round %d: final apply failed:\n%s", round, r)
			}
			break
		}
		inFlightAtKill += len(inFlight)
		st, lerr := loadState(h.dir, "", "")
		if lerr != nil {
			t.Fatalf("round %d: state does not load after kill -9: %v", round, lerr)
		}
		if st.Splits["search.eng"] == nil && st.Searches["search.eng"] == nil {
			t.Fatalf("round %d: neither a run under way nor a record after the kill", round)
		}
		// A dead run's lock: the next apply refuses it; force-unlock it.
		if id := h.lockID(); id != "" {
			if r := h.run("force-unlock", "--force", id); r.code != 0 {
				t.Fatalf("round %d: force-unlock:\n%s", round, r)
			}
		}
	}
	if kills < 5 {
		t.Fatalf("only %d kills; want the split interrupted many times", kills)
	}
	st := h.loadState()
	rec := st.Searches["search.eng"]
	if rec == nil || rec.Split == nil {
		t.Fatal("no split record at the end")
	}
	ss := rec.SplitSummary()
	ms, err := h.srv.Matching(rec.Request)
	if err != nil {
		t.Fatal(err)
	}
	found, truth, err := splitSets(st, rec, ms)
	if err != nil {
		t.Fatal(err)
	}
	if extra, missing := setDiff(found, truth), setDiff(truth, found); !ss.Complete || len(extra)+len(missing) > 0 {
		t.Errorf("end: %+v; want complete with the sandbox's %d people; extra %d: %s; missing %d: %s",
			ss, len(truth), len(extra), sample(extra), len(missing), sample(missing))
	}
	// Every search sent is a node of the tree, repeated only when it was
	// in flight at a kill: at most parallelism (3) per kill. (A call can
	// reach the sandbox before its call_start is printed, so the calls
	// seen in flight in the stream are a lower count.)
	if got := h.srv.Stats().ByOp[sandbox.OpSearch]; got > ss.SubSearches+3*kills {
		t.Errorf("%d searches for %d sub-searches and %d kills (%d seen in flight)", got, ss.SubSearches, kills, inFlightAtKill)
	}
	if r := h.run("plan", "--detailed-exitcode"); r.code != 0 {
		t.Fatalf("plan after the last apply has changes or failed:\n%s", r)
	}
	t.Logf("%d kills; %d sub-searches; %d searches sent; %d in flight at kills", kills, ss.SubSearches, h.srv.Stats().ByOp[sandbox.OpSearch], inFlightAtKill)
}
