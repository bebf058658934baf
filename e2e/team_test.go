package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
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

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/sandbox"
)

// pgConnStr returns the test database's connection string. Without
// LEADSYNC_TEST_PG the test skips, saying how to run it; under CI
// (CI=true) it fails instead, so that a missing server is never a pass.
func pgConnStr(t *testing.T) string {
	t.Helper()
	cs := os.Getenv("LEADSYNC_TEST_PG")
	if cs == "" {
		const how = "needs PostgreSQL: run `source .ci/pg-start` (it sets LEADSYNC_TEST_PG) and go test again"
		if os.Getenv("CI") == "true" {
			t.Fatal("LEADSYNC_TEST_PG is not set under CI; " + how)
		}
		t.Skip(how)
	}
	return cs
}

// freshSchema returns a schema name of its own for one test, dropped at
// its end.
func freshSchema(t *testing.T, cs string) string {
	var b [6]byte
	rand.Read(b[:])
	name := "e2e_" + hex.EncodeToString(b[:])
	t.Cleanup(func() {
		ctx := context.Background()
		c, err := pgx.Connect(ctx, cs)
		if err != nil {
			t.Errorf("cleanup: %v", err)
			return
		}
		defer c.Close(ctx)
		c.Exec(ctx, "DROP SCHEMA IF EXISTS "+name+" CASCADE")
	})
	return name
}

// teamConfig is killConfig (4 searches, up to 40 enrichments) on the pg
// backend, with `cities` as the search instances.
func teamConfig(schema string, cities ...string) string {
	q := make([]string, len(cities))
	for i, c := range cities {
		q[i] = fmt.Sprintf("%q", c)
	}
	return fmt.Sprintf(`
variable "sandbox_url" {
  type = string
}

leadsync {
  backend "pg" {
    schema_name = %q
  }
}

api {
  base_url    = var.sandbox_url
  rate_limit  = 20
  parallelism = 3
}

search "eng" {
  for_each    = toset([%s])
  keywords    = "Engineer"
  city        = each.value
  max_results = 10
}

enrich "all" {
  from = [search.eng]
}
`, schema, strings.Join(q, ", "))
}

// TestTeamSharesState: two working copies of one configuration (two
// teammates, A and B) share one PostgreSQL state. A applies; B's plan has
// nothing to do; A and B apply at once: one runs, the other is refused
// naming the holder; A is killed mid-apply: B applies at once, without
// force-unlock, and repeats no completed call.
func TestTeamSharesState(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes; skipped with -short")
	}
	cs := pgConnStr(t)
	schema := freshSchema(t, cs)
	srv := sandbox.New(sandbox.Options{
		Seed: 11, RateLimit: 20, RateWindow: time.Second / 20,
		SearchLatency: [2]time.Duration{20 * time.Millisecond, 80 * time.Millisecond},
		ReadLatency:   [2]time.Duration{30 * time.Millisecond, 90 * time.Millisecond},
	})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	env := append(os.Environ(), mainEnv+"=1", "LEADSYNC_VAR_sandbox_url="+hs.URL, "LEADSYNC_API_KEY="+sandbox.DefaultKey,
		"NO_COLOR=1", "LEADSYNC_PG_CONN_STR="+cs, "LEADSYNC_WORKSPACE=")
	a, b := t.TempDir(), t.TempDir()
	write := func(cities ...string) {
		for _, dir := range []string{a, b} {
			if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(teamConfig(schema, cities...)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	run := func(dir string, args ...string) (string, int) {
		cmd := exec.Command(os.Args[0], append(args, "--chdir", dir)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}

	// A applies; B sees it all.
	write("Berlin", "Hamburg")
	if out, code := run(a, "apply", "--auto-approve"); code != 0 {
		t.Fatalf("A's apply exited %d:\n%s", code, out)
	}
	if out, code := run(b, "plan", "--detailed-exitcode"); code != 0 {
		t.Fatalf("B's plan after A's apply exited %d (want 0, no changes):\n%s", code, out)
	}
	if strings.Contains(os.Getenv("LEADSYNC_TEST_PG"), "@") {
		if out, _ := run(b, "show"); strings.Contains(out, cs) {
			t.Fatalf("show prints the connection string:\n%s", out)
		}
	}
	enrichedBefore := srv.Stats().ByOp[sandbox.OpEnrich]

	// A and B at once: B is refused while A runs, and told who holds it.
	write("Berlin", "Hamburg", "München")
	aCmd, aEvents, aOut := startJSONApply(t, a, env)
	waitFor(t, aEvents, "call_start")
	out, code := run(b, "apply", "--auto-approve")
	if code != 1 || !strings.Contains(out, "is locked by") || !strings.Contains(out, fmt.Sprintf("(pid %d on ", aCmd.Process.Pid)) {
		t.Fatalf("B's apply while A runs exited %d; want 1 and A named as the holder (pid %d):\n%s", code, aCmd.Process.Pid, out)
	}
	if out, code := run(b, "show"); code != 0 || !strings.Contains(out, "Locked by ") || !strings.Contains(out, fmt.Sprintf("(pid %d)", aCmd.Process.Pid)) {
		t.Fatalf("B's show while A runs exited %d; want A named as the holder:\n%s", code, out)
	}
	// A plan while A runs reads a snapshot and does not wait for A.
	if out, code := run(b, "plan", "--detailed-exitcode"); code != 0 && code != 2 {
		t.Fatalf("B's plan while A runs exited %d:\n%s", code, out)
	}
	// With --lock-timeout, B waits for A instead, then finds nothing to do.
	bWait := exec.Command(os.Args[0], "apply", "--auto-approve", "--lock-timeout", "5m", "--chdir", b)
	bWait.Env = env
	var bWaitOut strings.Builder
	bWait.Stdout, bWait.Stderr = &bWaitOut, &bWaitOut
	if err := bWait.Start(); err != nil {
		t.Fatal(err)
	}
	for range aEvents {
	}
	if err := aCmd.Wait(); err != nil {
		t.Fatalf("A's apply: %v\n%s", err, aOut.String())
	}
	if err := bWait.Wait(); err != nil {
		t.Fatalf("B's apply --lock-timeout 5m after A: %v\n%s", err, bWaitOut.String())
	}
	if out, code := run(b, "plan", "--detailed-exitcode"); code != 0 {
		t.Fatalf("B's plan after A's second apply exited %d:\n%s", code, out)
	}

	// A is killed mid-apply: B goes on at once and repeats nothing A completed.
	write("Berlin", "Hamburg", "München", "Köln", "Frankfurt")
	before := srv.Stats()
	aCmd, aEvents, _ = startJSONApply(t, a, env)
	completed := map[string]bool{}
	inFlight := map[string]bool{}
	done := 0
	for ev := range aEvents {
		key := ev.Call.Address + " " + ev.Call.Page
		switch ev.MessageType {
		case "call_start":
			inFlight[key] = true
		case "call_done":
			delete(inFlight, key)
			completed[key] = true
			done++
		}
		if done == 4 {
			aCmd.Process.Signal(syscall.SIGKILL)
			break
		}
	}
	for ev := range aEvents { // started before the kill: in flight too
		if ev.MessageType == "call_start" {
			inFlight[ev.Call.Address+" "+ev.Call.Page] = true
		}
	}
	aCmd.Wait()
	// An enrichment A sent just before the kill, whose call_start it had no
	// time to print, is in the state as pending (noted as it was sent): in
	// flight too, and B may enrich that person again, as its plan says.
	pull := exec.Command(os.Args[0], "state", "pull", "--chdir", a)
	pull.Env = env
	pulled, err := pull.Output()
	if err != nil {
		t.Fatalf("state pull after the kill: %v", err)
	}
	var afterKill struct {
		People map[string]struct {
			Lead struct {
				PageName string `json:"pageName"`
			} `json:"lead"`
		} `json:"people"`
		Unknown map[string]json.RawMessage `json:"unknown_enrichments"`
	}
	if err := json.Unmarshal(pulled, &afterKill); err != nil {
		t.Fatalf("state pull after the kill: %v", err)
	}
	for id := range afterKill.Unknown {
		if p, ok := afterKill.People[id]; ok {
			inFlight["enrich.all "+p.Lead.PageName] = true
		}
	}
	bCmd, bEvents, bOut := startJSONApply(t, b, env)
	for ev := range bEvents {
		key := ev.Call.Address + " " + ev.Call.Page
		if ev.MessageType == "call_start" && completed[key] {
			t.Errorf("B repeats %s, which A completed before it was killed", key)
		}
	}
	if err := bCmd.Wait(); err != nil {
		t.Fatalf("B's apply after A was killed (no force-unlock): %v\n%s", err, bOut.String())
	}
	after := srv.Stats()
	for page, n := range after.Enriched {
		if n-before.Enriched[page] > 1 && !inFlight["enrich.all "+page] {
			t.Errorf("%s enriched %d times in this round but not in flight at the kill", page, n-before.Enriched[page])
		}
	}
	for _, dir := range []string{a, b} {
		if out, code := run(dir, "plan", "--detailed-exitcode"); code != 0 {
			t.Fatalf("plan in %s after B finished exited %d:\n%s", dir, code, out)
		}
	}
	t.Logf("A completed %d calls before the kill (%d in flight); enrich calls: %d before the kill round, %d after",
		done, len(inFlight), enrichedBefore, after.ByOp[sandbox.OpEnrich])
}

// TestStatePushThenNoChanges: a state applied locally and pushed into pg
// plans "No changes" against pg.
func TestStatePushThenNoChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes; skipped with -short")
	}
	cs := pgConnStr(t)
	schema := freshSchema(t, cs)
	srv := sandbox.New(sandbox.Options{Seed: 5, RateLimit: 50, RateWindow: time.Second / 50, NoLatency: true})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	env := append(os.Environ(), mainEnv+"=1", "LEADSYNC_VAR_sandbox_url="+hs.URL, "LEADSYNC_API_KEY="+sandbox.DefaultKey,
		"NO_COLOR=1", "LEADSYNC_PG_CONN_STR="+cs, "LEADSYNC_WORKSPACE=")
	dir := t.TempDir()
	cfg := teamConfig(schema, "Berlin", "Hamburg")
	local := strings.Replace(cfg, "leadsync {\n  backend \"pg\" {\n    schema_name = \""+schema+"\"\n  }\n}\n", "", 1)
	if local == cfg {
		t.Fatal("could not make the local configuration")
	}
	mustWrite := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(local)
	if out, err := runMain(env, "apply", "--auto-approve", "--chdir", dir); err != nil {
		t.Fatalf("local apply: %v\n%s", err, out)
	}
	mustWrite(cfg)
	if out, err := runMain(env, "plan", "--detailed-exitcode", "--chdir", dir); err == nil {
		t.Fatalf("plan against an empty pg workspace has no changes:\n%s", out)
	}
	out, err := runMain(env, "state", "push", "--chdir", dir)
	if err != nil || !strings.Contains(out, "Pushed") {
		t.Fatalf("state push: %v\n%s", err, out)
	}
	if out, err := runMain(env, "plan", "--detailed-exitcode", "--chdir", dir); err != nil || !strings.Contains(out, "No changes") {
		t.Fatalf("plan after state push: %v\n%s", err, out)
	}
	if out, err := runMain(env, "state", "push", "--chdir", dir); err == nil || !strings.Contains(out, "--force") {
		t.Fatalf("second push into a non-empty workspace: %v\n%s", err, out)
	}
	// pull prints the local file's JSON, the same people.
	pull := exec.Command(os.Args[0], "state", "pull", "--chdir", dir)
	pull.Env = env
	pulledB, err := pull.Output()
	pulled := string(pulledB)
	if err != nil {
		t.Fatalf("state pull: %v\n%s", err, pulled)
	}
	var p, l struct {
		Lineage string                     `json:"lineage"`
		People  map[string]json.RawMessage `json:"people"`
	}
	lb, _ := os.ReadFile(filepath.Join(dir, ".leadsync", "state.json"))
	if json.Unmarshal([]byte(pulled), &p) != nil || json.Unmarshal(lb, &l) != nil || p.Lineage != l.Lineage || len(p.People) != len(l.People) || len(p.People) == 0 {
		t.Fatalf("pulled state: lineage %q with %d people; local %q with %d\n%.300s", p.Lineage, len(p.People), l.Lineage, len(l.People), pulled)
	}
	// The reading and editing commands work on the workspace.
	out, err = runMain(env, "state", "list", "--no-people", "--chdir", dir)
	if err != nil || !strings.Contains(out, `search.eng["Berlin"]`) || !strings.Contains(out, `search.eng["Hamburg"]`) {
		t.Fatalf("state list: %v\n%s", err, out)
	}
	if out, err := runMain(env, "state", "show", `search.eng["Berlin"]`, "--chdir", dir); err != nil || !strings.Contains(out, "request_hash") {
		t.Fatalf("state show: %v\n%s", err, out)
	}
	if out, err := runMain(env, "show", "--chdir", dir); err != nil || !strings.Contains(out, `workspace "default" in PostgreSQL`) || !strings.Contains(out, "Searches: 2") {
		t.Fatalf("show: %v\n%s", err, out)
	}
	if out, err := runMain(env, "force-unlock", "--force", "x", "--chdir", dir); err == nil || !strings.Contains(out, "nothing to force-unlock") {
		t.Fatalf("force-unlock on pg: %v\n%s", err, out)
	}
	if out, err := runMain(env, "state", "rm", `search.eng["Hamburg"]`, "--chdir", dir); err != nil || !strings.Contains(out, "Removed") {
		t.Fatalf("state rm: %v\n%s", err, out)
	}
	out, err = runMain(env, "plan", "--detailed-exitcode", "--chdir", dir)
	if err == nil || !strings.Contains(out, `search.eng["Hamburg"]`) {
		t.Fatalf("plan after state rm should run the removed search again: %v\n%s", err, out)
	}
	// Workspaces: a second one is empty until pushed into.
	if out, err := runMain(env, "workspace", "new", "uk", "--chdir", dir); err != nil {
		t.Fatalf("workspace new: %v\n%s", err, out)
	}
	if out, err := runMain(env, "--workspace", "uk", "plan", "--detailed-exitcode", "--chdir", dir); err == nil {
		t.Fatalf("plan in an empty workspace has no changes:\n%s", out)
	}
	out, err = runMain(env, "workspace", "list", "--chdir", dir)
	if err != nil || !strings.Contains(out, "* default") || !strings.Contains(out, "  uk") {
		t.Fatalf("workspace list: %v\n%s", err, out)
	}
	if out, err := runMain(env, "workspace", "delete", "default", "--chdir", dir); err == nil {
		t.Fatalf("default workspace deleted:\n%s", out)
	}
	if out, err := runMain(env, "workspace", "delete", "uk", "--chdir", dir); err != nil {
		t.Fatalf("delete of an empty workspace: %v\n%s", err, out)
	}
}

// startJSONApply starts apply --json in dir and streams its events.
func startJSONApply(t *testing.T, dir string, env []string) (*exec.Cmd, <-chan streamEvent, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "apply", "--auto-approve", "--json", "--chdir", dir)
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
	ch := make(chan streamEvent, 1024)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev streamEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				ch <- ev
			}
		}
	}()
	return cmd, ch, &stderr
}

// waitFor reads events until one of type typ.
func waitFor(t *testing.T, ch <-chan streamEvent, typ string) {
	t.Helper()
	for ev := range ch {
		if ev.MessageType == typ {
			return
		}
	}
	t.Fatalf("no %s event", typ)
}

// TestPGConnStrNeverPrinted: a connection string with a password, to a
// server that is not there, gives errors without the password, whatever
// the command.
func TestPGConnStrNeverPrinted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes; skipped with -short")
	}
	dir := t.TempDir()
	cfg := "leadsync {\n  backend \"pg\" {}\n}\napi {\n  sandbox = true\n}\nsearch \"a\" {\n  keywords = \"CTO\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cs := range []string{
		"postgres://leads:Sup3rS3cretPw@127.0.0.1:1/leads?connect_timeout=5",
		"host=127.0.0.1 port=1 user=leads password=Sup3rS3cretPw dbname=leads connect_timeout=5",
	} {
		env := append(os.Environ(), mainEnv+"=1", "NO_COLOR=1", "LEADSYNC_PG_CONN_STR="+cs, "LEADSYNC_WORKSPACE=")
		for _, args := range [][]string{{"plan"}, {"apply", "--auto-approve"}, {"show"}, {"export"}, {"state", "list"}, {"state", "pull"}, {"workspace", "list"}, {"force-unlock", "x"}} {
			out, err := runMain(env, append(args, "--chdir", dir)...)
			if err == nil {
				t.Errorf("%v with no server succeeded:\n%s", args, out)
			}
			if strings.Contains(out, "Sup3rS3cretPw") {
				t.Errorf("%v prints the database password:\n%s", args, out)
			}
		}
	}
}

// TestTeamExportsFollowSharedState: the spreadsheets are files of each
// working copy, recorded in its own .leadsync/exports.json, while the
// state they come from is shared (in PostgreSQL, or in one local state
// file both configurations name with state_path). B writing B's
// spreadsheets changes no shared state, so A's stay up to date;
// `leadsync usage` writes no state either; B erasing a person changes the
// shared state, so A's plan writes A's spreadsheet again (exit 2) and the
// person leaves it.
func TestTeamExportsFollowSharedState(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real processes; skipped with -short")
	}
	for _, backend := range []string{"local", "pg"} {
		t.Run(backend, func(t *testing.T) { exportsFollowSharedState(t, backend) })
	}
}

func exportsFollowSharedState(t *testing.T, backend string) {
	srv := sandbox.New(sandbox.Options{Seed: 5, RateLimit: 50, RateWindow: time.Second / 50, NoLatency: true})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	env := append(os.Environ(), mainEnv+"=1", "LEADSYNC_VAR_sandbox_url="+hs.URL, "LEADSYNC_API_KEY="+sandbox.DefaultKey,
		"NO_COLOR=1", "LEADSYNC_WORKSPACE=", "LEADSYNC_TEST_PG_SCHEMA=")
	var cfg string
	if backend == "pg" {
		cs := pgConnStr(t)
		env = append(env, "LEADSYNC_PG_CONN_STR="+cs)
		cfg = teamConfig(freshSchema(t, cs), "Berlin")
	} else {
		pgBlock := "leadsync {\n  backend \"pg\" {\n    schema_name = \"unused\"\n  }\n}\n"
		shared := filepath.Join(t.TempDir(), "state.json")
		cfg = strings.Replace(teamConfig("unused", "Berlin"), pgBlock, fmt.Sprintf("leadsync {\n  state_path = %q\n}\n", shared), 1)
		if !strings.Contains(cfg, shared) {
			t.Fatal("could not make the configuration of the shared local state")
		}
	}
	cfg += `
export "leads" {
  path = "out/leads.csv"
  sheet "Engineers" {
    from    = [search.eng]
    columns = ["fullName", "networkId", "email"]
  }
}
`
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(dir string, args ...string) (string, int) {
		cmd := exec.Command(os.Args[0], append(args, "--chdir", dir)...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	mustPlan := func(dir string, code int, want string) {
		t.Helper()
		out, got := run(dir, "plan", "--detailed-exitcode")
		if got != code || !strings.Contains(out, want) {
			t.Fatalf("plan in %s exited %d, want %d and %q:\n%s", dir, got, code, want, out)
		}
	}

	if out, code := run(a, "apply", "--auto-approve"); code != 0 {
		t.Fatalf("A's apply exited %d:\n%s", code, out)
	}
	mustPlan(a, 0, "No changes")
	// B has the state but not the file: B's plan writes B's spreadsheet,
	// and B's apply writes it without touching the shared state.
	mustPlan(b, 2, "out/leads.csv (missing)")
	if out, code := run(b, "apply", "--auto-approve"); code != 0 || !strings.Contains(out, "Wrote out/leads.csv") {
		t.Fatalf("B's apply exited %d:\n%s", code, out)
	}
	mustPlan(b, 0, "No changes")
	mustPlan(a, 0, "No changes")
	if out, code := run(a, "usage"); code != 0 {
		t.Fatalf("usage exited %d:\n%s", code, out)
	}
	mustPlan(a, 0, "No changes")

	// B erases the first person of A's file.
	csvA, err := os.ReadFile(filepath.Join(a, "out", "leads.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(csvA), "\r\n")
	if len(lines) < 3 {
		t.Fatalf("A's CSV has no rows:\n%s", csvA)
	}
	nid := strings.Split(lines[1], ",")[1]
	if out, code := run(b, "forget", nid); code != 0 {
		t.Fatalf("B's forget exited %d:\n%s", code, out)
	}
	mustPlan(a, 2, "state changed since out/leads.csv was written")
	if out, code := run(a, "apply", "--auto-approve"); code != 0 {
		t.Fatalf("A's apply after B's forget exited %d:\n%s", code, out)
	}
	if csvA, _ := os.ReadFile(filepath.Join(a, "out", "leads.csv")); strings.Contains(string(csvA), nid) {
		t.Fatalf("A's CSV still lists %s after the apply", nid)
	}
	mustPlan(a, 0, "No changes")
	mustPlan(b, 2, "state changed since out/leads.csv was written")
}
