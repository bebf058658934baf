package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/pg"
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
	if testing.Short() {
		t.Skip("kills real processes; skipped with -short")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := sandbox.New(sandbox.Options{
		Seed: 7, RateLimit: 20, RateWindow: time.Second / 20,
		SearchLatency: [2]time.Duration{20 * time.Millisecond, 80 * time.Millisecond},
	})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(splitKillConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), mainEnv+"=1", "LEADSYNC_VAR_sandbox_url="+hs.URL, "LEADSYNC_API_KEY="+sandbox.DefaultKey, "NO_COLOR=1")
	statePath := filepath.Join(dir, ".leadsync", "state.json")

	completed := map[string]bool{}
	inFlightAtKill := 0
	kills := 0
	for round := 0; round < 40; round++ {
		cmd := exec.Command(exe, "apply", "--auto-approve", "--json", "--chdir", dir)
		cmd.Env = env
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		inFlight := map[string]bool{}
		done, killed := 0, false
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev streamEvent
			if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Call.Kind != "search" {
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
				_ = cmd.Process.Signal(syscall.SIGKILL)
				killed, kills = true, kills+1
			}
		}
		err = cmd.Wait()
		if !killed {
			if err != nil {
				t.Fatalf("round %d: final apply failed: %v\n%s", round, err, stderr.String())
			}
			break
		}
		inFlightAtKill += len(inFlight)
		st, lerr := local.NewStore(statePath).Load()
		if lerr != nil {
			t.Fatalf("round %d: state does not load after kill -9: %v", round, lerr)
		}
		if st.Splits["search.eng"] == nil && st.Searches["search.eng"] == nil {
			t.Fatalf("round %d: neither a run under way nor a record after the kill", round)
		}
		// A dead run's lock: the next apply refuses it; force-unlock it.
		if b, err := os.ReadFile(statePath + ".lock"); err == nil {
			var info struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(b, &info); err != nil || info.ID == "" {
				t.Fatalf("round %d: unreadable lock: %v", round, err)
			}
			if out, ferr := runMain(env, "force-unlock", "--force", info.ID, "--chdir", dir); ferr != nil {
				t.Fatalf("round %d: force-unlock: %v\n%s", round, ferr, out)
			}
		}
	}
	if kills < 5 {
		t.Fatalf("only %d kills; want the split interrupted many times", kills)
	}
	st, err := local.NewStore(statePath).Load()
	if err != nil {
		t.Fatal(err)
	}
	rec := st.Searches["search.eng"]
	if rec == nil || rec.Split == nil {
		t.Fatal("no split record at the end")
	}
	ss := rec.SplitSummary()
	ms, err := srv.Matching(rec.Request)
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
	if got := srv.Stats().ByOp[sandbox.OpSearch]; got > ss.SubSearches+3*kills {
		t.Errorf("%d searches for %d sub-searches and %d kills (%d seen in flight)", got, ss.SubSearches, kills, inFlightAtKill)
	}
	if out, err := runMain(env, "plan", "--detailed-exitcode", "--chdir", dir); err != nil {
		t.Fatalf("plan after the last apply has changes or failed: %v\n%s", err, out)
	}
	t.Logf("%d kills; %d sub-searches; %d searches sent; %d in flight at kills", kills, ss.SubSearches, srv.Stats().ByOp[sandbox.OpSearch], inFlightAtKill)
}

// cmdSplitTruth checks a split search's record in the script's state
// against the sandbox's own set of matching people, by network ID:
//
//	split-truth ADDRESS   the run is complete and found exactly them
//	! split-truth ADDRESS the run is incomplete and found some of them, no one else
//
// It prints people=N truth=N complete=B sub_searches=N, and the network IDs
// found but not matching (extra) and matching but not found (missing).
func cmdSplitTruth(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: split-truth ADDRESS")
	}
	var st *state.State
	var err error
	if schema := ts.Getenv(testBackendEnv); schema != "" {
		// The script runs on the pg backend (TestScriptsPG).
		b, berr := pg.New(pg.Options{ConnStr: ts.Getenv("LEADSYNC_PG_CONN_STR"), Schema: schema})
		ts.Check(berr)
		defer b.Close()
		st, err = b.Load()
	} else {
		st, err = local.NewStore(ts.MkAbs(".leadsync/state.json")).Load()
	}
	ts.Check(err)
	rec := st.Searches[args[0]]
	if rec == nil || rec.Split == nil {
		ts.Fatalf("%s: no split search in state", args[0])
	}
	ms, err := scriptSB(ts).srv.Matching(rec.Request)
	ts.Check(err)
	found, truth, err := splitSets(st, rec, ms)
	ts.Check(err)
	extra, missing := setDiff(found, truth), setDiff(truth, found)
	ss := rec.SplitSummary()
	fmt.Fprintf(ts.Stdout(), "people=%d truth=%d complete=%v sub_searches=%d\n", len(found), len(truth), ss.Complete, ss.SubSearches)
	if len(extra) > 0 {
		fmt.Fprintf(ts.Stdout(), "extra (found, not matching): %d: %s\n", len(extra), sample(extra))
	}
	if len(missing) > 0 {
		fmt.Fprintf(ts.Stdout(), "missing (matching, not found): %d: %s\n", len(missing), sample(missing))
	}
	if ss.People != len(found) {
		ts.Fatalf("%s: the record says %d people found but holds %d (max_results below the truth?)", args[0], ss.People, len(found))
	}
	switch {
	case len(extra) > 0:
		ts.Fatalf("%s: %d people found that the sandbox does not match", args[0], len(extra))
	case !neg && (!ss.Complete || len(missing) > 0):
		ts.Fatalf("%s: %d people found, complete=%v; the sandbox has %d (%d missing)", args[0], len(found), ss.Complete, len(truth), len(missing))
	case neg && (ss.Complete || len(missing) == 0):
		ts.Fatalf("%s: complete=%v with %d of %d people; want incomplete", args[0], ss.Complete, len(found), len(truth))
	}
}

// splitSets returns the network IDs of the people a split search's record
// holds and of the sandbox's members matching its request.
func splitSets(st *state.State, rec *state.Search, ms []*sandbox.Member) (found, truth map[string]bool, err error) {
	truth = make(map[string]bool, len(ms))
	for _, m := range ms {
		truth[m.NetworkID] = true
	}
	found = make(map[string]bool, len(rec.LeadIDs))
	for _, id := range rec.LeadIDs {
		p := st.People[id]
		if p == nil || p.Lead.NetworkID == "" {
			return nil, nil, fmt.Errorf("%s: person %q has no network ID in state", rec.Address, id)
		}
		found[p.Lead.NetworkID] = true
	}
	return found, truth, nil
}

// setDiff returns the keys of a not in b, sorted.
func setDiff(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// sample joins the first ten of ids, with "..." when there are more.
func sample(ids []string) string {
	if len(ids) > 10 {
		return strings.Join(ids[:10], " ") + " ..."
	}
	return strings.Join(ids, " ")
}
