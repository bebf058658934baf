package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/pg"
)

// testBackendEnv names a pg schema that commands use, with
// LEADSYNC_PG_CONN_STR, for a configuration without a backend block: the
// existing end-to-end tests run against pg this way (test only).
const testBackendEnv = "LEADSYNC_TEST_PG_SCHEMA"

// killConfig has 4 searches and up to 40 enrichments: 44 calls, enough to
// kill the process at more than 20 points spread over the run.
const killConfig = `
variable "sandbox_url" {
  type = string
}

api {
  base_url    = var.sandbox_url
  rate_limit  = 20
  parallelism = 3
}

search "eng" {
  for_each    = toset(["Berlin", "Hamburg", "München", "Köln"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 10
}

enrich "all" {
  from = [search.eng]
}

export "out" {
  path = "out/leads.csv"
  sheet "All" {
    from = [search.eng]
  }
}
`

type streamEvent struct {
	MessageType string `json:"message_type"`
	Call        struct {
		Kind    string `json:"kind"`
		Address string `json:"address"`
		Page    string `json:"page_name"`
		// SubSearch names a split's sub-search (its added filters).
		SubSearch string `json:"sub_search"`
	} `json:"call"`
}

// TestKillAnywhere kills apply with SIGKILL after every second completed
// call, again and again, and checks that each time the state loads, the
// journal replays, and the next apply repeats no completed call: nobody is
// enriched twice unless their enrichment was in flight when the process was
// killed (the one case the service may have charged without our knowing).
func TestKillAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("kills real processes; skipped with -short")
	}
	t.Run("local", func(t *testing.T) { killAnywhere(t, "") })
	// The same on the pg backend: there the lock goes with the killed
	// process's connection, so every next apply must start at once.
	t.Run("pg", func(t *testing.T) {
		cs := pgConnStr(t)
		killAnywhere(t, cs)
	})
}

// killAnywhere is TestKillAnywhere on the local state file, or on a fresh
// pg schema when connStr is set.
func killAnywhere(t *testing.T, connStr string) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := sandbox.New(sandbox.Options{
		Seed: 7, RateLimit: 20, RateWindow: time.Second / 20,
		SearchLatency: [2]time.Duration{20 * time.Millisecond, 80 * time.Millisecond},
		ReadLatency:   [2]time.Duration{10 * time.Millisecond, 40 * time.Millisecond},
	})
	hs := httptest.NewServer(srv)
	defer hs.Close()

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(killConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), mainEnv+"=1", "LEADSYNC_VAR_sandbox_url="+hs.URL, "LEADSYNC_API_KEY="+sandbox.DefaultKey, "NO_COLOR=1")
	loadState := func() (*state.State, error) {
		return local.NewStore(filepath.Join(dir, ".leadsync", "state.json")).Load()
	}
	if connStr != "" {
		schema := freshSchema(t, connStr)
		env = append(env, testBackendEnv+"="+schema, "LEADSYNC_PG_CONN_STR="+connStr, "LEADSYNC_WORKSPACE=")
		loadState = func() (*state.State, error) {
			b, err := pg.New(pg.Options{ConnStr: connStr, Schema: schema})
			if err != nil {
				return nil, err
			}
			defer b.Close()
			return b.Load()
		}
	}

	completed := map[string]bool{}      // searches and pages whose call_done we saw
	inFlightAtKill := map[string]bool{} // pages being enriched when a kill came
	kills := 0
	staleLock := false // the last round left the lock of a killed process
	for round := 0; round < 60; round++ {
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
		done := 0
		killed := false
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev streamEvent
			if json.Unmarshal(sc.Bytes(), &ev) != nil {
				continue
			}
			key := ev.Call.Address + " " + ev.Call.Page
			switch ev.MessageType {
			case "call_start":
				if ev.Call.Kind == "enrich" && completed[key] {
					t.Errorf("round %d: %s enriched again after a completed enrichment", round, ev.Call.Page)
				}
				inFlight[key] = true
			case "call_done":
				delete(inFlight, key)
				if ev.Call.Kind == "enrich" {
					completed[key] = true
				}
				done++
			}
			if done >= 2 && !killed {
				_ = cmd.Process.Signal(syscall.SIGKILL)
				killed = true
				kills++
				for k := range inFlight {
					inFlightAtKill[strings.TrimPrefix(k, "enrich.all ")] = true
				}
			}
		}
		err = cmd.Wait()
		if staleLock && !strings.Contains(stderr.String(), "removed the stale state lock") {
			t.Errorf("round %d: the apply after a kill did not say it removed the dead run's lock:\n%s", round, stderr.String())
		}
		if killed {
			// Calls whose call_start was still in the pipe at the kill had
			// reached the service too: they were in flight as well.
			for k := range inFlight {
				inFlightAtKill[strings.TrimPrefix(k, "enrich.all ")] = true
			}
		}
		if !killed {
			if err != nil {
				t.Fatalf("round %d: final apply failed: %v\n%s", round, err, stderr.String())
			}
			break
		}
		// The state must load (and the journal replay) after every kill.
		st, lerr := loadState()
		if lerr != nil {
			t.Fatalf("round %d: state does not load after kill -9: %v", round, lerr)
		}
		// An enrichment can reach the service before its call_start reaches
		// the pipe (the event is printed by the run's goroutine after the
		// worker sent the request): the stream alone cannot tell every call
		// in flight at a kill. The journal can: each enrichment is noted
		// pending before it is sent, and state keeps those without an
		// outcome as unknown enrichments.
		for id := range st.UnknownEnrichments {
			if p := st.People[id]; p != nil {
				inFlightAtKill[p.Lead.PageName] = true
			}
		}
		// A lock left by the killed process belongs to a dead pid: the next
		// round's apply removes it with a note.
		if b, err := os.ReadFile(filepath.Join(dir, ".leadsync", "state.json.lock")); err == nil {
			var info struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(b, &info); err != nil || info.ID == "" {
				t.Fatalf("round %d: lock file left by the killed run is unreadable: %v\n%s", round, err, b)
			}
			staleLock = true
		} else {
			staleLock = false
		}
	}
	if kills < 20 {
		t.Fatalf("only %d kills; want at least 20 spread over the run", kills)
	}
	stats := srv.Stats()
	for page, n := range stats.Enriched {
		if n > 1 && !inFlightAtKill[page] {
			t.Errorf("%s was enriched %d times but was never in flight at a kill", page, n)
		}
	}
	// Every search ran once per request: a search is repeated only when it
	// was in flight at a kill.
	if got := stats.ByOp[sandbox.OpSearch]; got > 4+kills {
		t.Errorf("%d searches for 4 search instances and %d kills", got, kills)
	}
	// The end state is complete: a plan now has nothing to do.
	out, err := runMain(env, "plan", "--detailed-exitcode", "--chdir", dir)
	if err != nil {
		t.Fatalf("plan after the last apply has changes or failed: %v\n%s", err, out)
	}
	t.Logf("%d kills; %d enrich calls for %d people; in flight at a kill: %d", kills, stats.ByOp[sandbox.OpEnrich], len(stats.Enriched), len(inFlightAtKill))
}

func runMain(env []string, args ...string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%s: %w", strings.Join(args, " "), err)
	}
	return string(out), nil
}

// TestApplyJSONIntoAClosedPipe: `apply --json | head -3` must not kill
// apply mid-run (which would leave a lock and lose the calls in flight): the
// run stops like a first Ctrl-C, saves state and unlocks.
func TestApplyJSONIntoAClosedPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real process; skipped with -short")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := sandbox.New(sandbox.Options{Seed: 7, RateLimit: 20, RateWindow: time.Second / 20,
		SearchLatency: [2]time.Duration{20 * time.Millisecond, 60 * time.Millisecond}})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(killConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "apply", "--auto-approve", "--json", "--chdir", dir)
	cmd.Env = append(os.Environ(), mainEnv+"=1", "LEADSYNC_VAR_sandbox_url="+hs.URL, "LEADSYNC_API_KEY="+sandbox.DefaultKey)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for i := 0; i < 3 && sc.Scan(); i++ {
	}
	stdout.Close() // the reader goes away, like head -3
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok && ee.ProcessState.Sys().(syscall.WaitStatus).Signaled() {
		t.Fatalf("apply was killed by a signal (%v); it should stop cleanly\n%s", err, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, ".leadsync", "state.json.lock")); err == nil {
		t.Errorf("the lock was left behind")
	}
	if _, err := local.NewStore(filepath.Join(dir, ".leadsync", "state.json")).Load(); err != nil {
		t.Errorf("state does not load: %v", err)
	}
	if n := srv.Stats().ByOp[sandbox.OpEnrich]; n >= 40 {
		t.Errorf("%d enrichments: the run went on to the end for nobody", n)
	}
}

// TestKillWhileSaving kills apply right after its summary, while it folds
// the journal into the state and writes the spreadsheet, at several
// moments: each time the state must load with every result, and the next
// apply must fetch nothing again (at most rewrite the spreadsheet).
func TestKillWhileSaving(t *testing.T) {
	if testing.Short() {
		t.Skip("kills real processes; skipped with -short")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for i, delay := range []time.Duration{0, time.Millisecond, 5 * time.Millisecond} {
		srv := sandbox.New(sandbox.Options{Seed: 9, RateLimit: 20, RateWindow: time.Second / 20, NoLatency: true})
		hs := httptest.NewServer(srv)
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(killConfig), 0o644); err != nil {
			t.Fatal(err)
		}
		env := append(os.Environ(), mainEnv+"=1", "LEADSYNC_VAR_sandbox_url="+hs.URL, "LEADSYNC_API_KEY="+sandbox.DefaultKey)
		cmd := exec.Command(exe, "apply", "--auto-approve", "--json", "--chdir", dir)
		cmd.Env = env
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `"message_type":"summary"`) {
				time.Sleep(delay) // a moment into the save
				_ = cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
		_ = cmd.Wait()
		if _, err := local.NewStore(filepath.Join(dir, ".leadsync", "state.json")).Load(); err != nil {
			t.Fatalf("kill %d (%s into the save): state does not load: %v", i, delay, err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, ".leadsync", "state.json.lock")); err == nil {
			var info struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(b, &info)
			if out, err := runMain(env, "force-unlock", "--force", info.ID, "--chdir", dir); err != nil {
				t.Fatalf("force-unlock: %v\n%s", err, out)
			}
		}
		before := srv.Stats()
		if out, err := runMain(env, "apply", "--auto-approve", "--chdir", dir); err != nil {
			t.Fatalf("kill %d: apply after the kill: %v\n%s", i, err, out)
		}
		after := srv.Stats()
		for _, op := range []sandbox.Op{sandbox.OpSearch, sandbox.OpEnrich} {
			if n := after.ByOp[op] - before.ByOp[op]; n != 0 {
				t.Errorf("kill %d (%s into the save): %d %s calls again after the kill", i, delay, n, op)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "out", "leads.csv")); err != nil {
			t.Errorf("kill %d: the spreadsheet is not there after the next apply: %v", i, err)
		}
		hs.Close()
	}
}
