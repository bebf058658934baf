package e2e

// A team shares one state: two working copies of one configuration (two
// teammates) on one PostgreSQL database, or on one local state file, see
// each other's work, wait for each other, and each keep their own
// spreadsheets.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/testenv"
)

// teamConfig is killConfig (kill_test.go: searches of engineers, each
// found enriched) on the pg backend, with `cities` as the search instances.
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
	testenv.SkipIfShort(t, "runs real processes")
	t.Parallel()
	a := newHarness(t, sandbox.Options{
		Seed: 11, RateLimit: 20, RateWindow: time.Second / 20,
		SearchLatency: [2]time.Duration{20 * time.Millisecond, 80 * time.Millisecond},
		ReadLatency:   [2]time.Duration{30 * time.Millisecond, 90 * time.Millisecond},
	}, "")
	schema := a.usePG()
	b := a.workingCopy("")
	write := func(cities ...string) {
		for _, h := range []*harness{a, b} {
			h.writeConfig(teamConfig(schema, cities...))
		}
	}

	// A applies; B sees it all.
	write("Berlin", "Hamburg")
	if r := a.run("apply", "--auto-approve"); r.code != 0 {
		t.Fatalf("A's apply:\n%s", r)
	}
	if r := b.run("plan", "--detailed-exitcode"); r.code != 0 {
		t.Fatalf("B's plan after A's apply (want exit 0, no changes):\n%s", r)
	}
	if strings.Contains(a.pgConnStr, "@") {
		if r := b.run("show"); strings.Contains(r.output(), a.pgConnStr) {
			t.Fatalf("show prints the connection string:\n%s", r)
		}
	}
	enrichedBefore := a.srv.Stats().ByOp[sandbox.OpEnrich]

	// A and B at once: B is refused while A runs, and told who holds it.
	write("Berlin", "Hamburg", "München")
	aRun := a.startApply()
	aRun.waitFor("call_start")
	r := b.run("apply", "--auto-approve")
	if r.code != 1 || !strings.Contains(r.output(), "is locked by") || !strings.Contains(r.output(), fmt.Sprintf("(pid %d on ", aRun.pid())) {
		t.Fatalf("B's apply while A runs: want exit 1 and A named as the holder (pid %d):\n%s", aRun.pid(), r)
	}
	if r := b.run("show"); r.code != 0 || !strings.Contains(r.output(), "Locked by ") || !strings.Contains(r.output(), fmt.Sprintf("(pid %d)", aRun.pid())) {
		t.Fatalf("B's show while A runs: want exit 0 and A named as the holder:\n%s", r)
	}
	// A plan while A runs reads a snapshot and does not wait for A.
	if r := b.run("plan", "--detailed-exitcode"); r.code != 0 && r.code != 2 {
		t.Fatalf("B's plan while A runs:\n%s", r)
	}
	// With --lock-timeout, B waits for A instead, then finds nothing to do.
	bWait := b.command("apply", "--auto-approve", "--lock-timeout", "5m")
	var bWaitOut strings.Builder
	bWait.Stdout, bWait.Stderr = &bWaitOut, &bWaitOut
	if err := bWait.Start(); err != nil {
		t.Fatal(err)
	}
	if r := aRun.wait(); r.code != 0 {
		t.Fatalf("A's apply:\n%s", r)
	}
	if err := bWait.Wait(); err != nil {
		t.Fatalf("B's apply --lock-timeout 5m after A: %v\n%s", err, bWaitOut.String())
	}
	if r := b.run("plan", "--detailed-exitcode"); r.code != 0 {
		t.Fatalf("B's plan after A's second apply:\n%s", r)
	}

	// A is killed mid-apply: B goes on at once and repeats nothing A completed.
	write("Berlin", "Hamburg", "München", "Köln", "Frankfurt")
	before := a.srv.Stats()
	aRun = a.startApply()
	completed := map[string]bool{}
	inFlight := map[string]bool{}
	done := 0
	for ev := range aRun.events {
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
			aRun.kill()
			break
		}
	}
	for ev := range aRun.events { // started before the kill: in flight too
		if ev.MessageType == "call_start" {
			inFlight[ev.Call.Address+" "+ev.Call.Page] = true
		}
	}
	aRun.wait()
	// An enrichment A sent just before the kill, whose call_start it had no
	// time to print, is in the state as pending (noted as it was sent): in
	// flight too, and B may enrich that person again, as its plan says.
	pulled := a.run("state", "pull")
	if pulled.code != 0 {
		t.Fatalf("state pull after the kill:\n%s", pulled)
	}
	var afterKill struct {
		People map[string]struct {
			Lead struct {
				PageName string `json:"pageName"`
			} `json:"lead"`
		} `json:"people"`
		Unknown map[string]json.RawMessage `json:"unknown_enrichments"`
	}
	if err := json.Unmarshal([]byte(pulled.stdout), &afterKill); err != nil {
		t.Fatalf("state pull after the kill: %v", err)
	}
	for id := range afterKill.Unknown {
		if p, ok := afterKill.People[id]; ok {
			inFlight["enrich.all "+p.Lead.PageName] = true
		}
	}
	bRun := b.startApply()
	for ev := range bRun.events {
		key := ev.Call.Address + " " + ev.Call.Page
		if ev.MessageType == "call_start" && completed[key] {
			t.Errorf("B repeats %s, which A completed before it was killed", key)
		}
	}
	if r := bRun.wait(); r.code != 0 {
		t.Fatalf("B's apply after A was killed (no force-unlock):\n%s", r)
	}
	after := a.srv.Stats()
	for page, n := range after.Enriched {
		if n-before.Enriched[page] > 1 && !inFlight["enrich.all "+page] {
			t.Errorf("%s enriched %d times in this round but not in flight at the kill", page, n-before.Enriched[page])
		}
	}
	for _, h := range []*harness{a, b} {
		if r := h.run("plan", "--detailed-exitcode"); r.code != 0 {
			t.Fatalf("plan in %s after B finished:\n%s", h.dir, r)
		}
	}
	t.Logf("A completed %d calls before the kill (%d in flight); enrich calls: %d before the kill round, %d after",
		done, len(inFlight), enrichedBefore, after.ByOp[sandbox.OpEnrich])
}

// TestStatePushThenNoChanges: a state applied locally and pushed into pg
// plans "No changes" against pg.
func TestStatePushThenNoChanges(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes")
	t.Parallel()
	h := newHarness(t, sandbox.Options{Seed: 5, RateLimit: 50, RateWindow: time.Second / 50, NoLatency: true}, "")
	schema := h.usePG()
	cfg := teamConfig(schema, "Berlin", "Hamburg")
	local := strings.Replace(cfg, "leadsync {\n  backend \"pg\" {\n    schema_name = \""+schema+"\"\n  }\n}\n", "", 1)
	if local == cfg {
		t.Fatal("could not make the local configuration")
	}
	h.writeConfig(local)
	if r := h.run("apply", "--auto-approve"); r.code != 0 {
		t.Fatalf("local apply:\n%s", r)
	}
	h.writeConfig(cfg)
	if r := h.run("plan", "--detailed-exitcode"); r.code == 0 {
		t.Fatalf("plan against an empty pg workspace has no changes:\n%s", r)
	}
	if r := h.run("state", "push"); r.code != 0 || !strings.Contains(r.output(), "Pushed") {
		t.Fatalf("state push:\n%s", r)
	}
	if r := h.run("plan", "--detailed-exitcode"); r.code != 0 || !strings.Contains(r.output(), "No changes") {
		t.Fatalf("plan after state push:\n%s", r)
	}
	if r := h.run("state", "push"); r.code == 0 || !strings.Contains(r.output(), "--force") {
		t.Fatalf("second push into a non-empty workspace:\n%s", r)
	}
	// pull prints the local file's JSON, the same people.
	pulled := h.run("state", "pull")
	if pulled.code != 0 {
		t.Fatalf("state pull:\n%s", pulled)
	}
	var p, l struct {
		Lineage string                     `json:"lineage"`
		People  map[string]json.RawMessage `json:"people"`
	}
	if ls, err := loadState(h.dir, "", ""); err == nil {
		l.Lineage = ls.Lineage
		l.People = make(map[string]json.RawMessage, len(ls.People))
		for id := range ls.People {
			l.People[id] = nil
		}
	}
	if json.Unmarshal([]byte(pulled.stdout), &p) != nil || p.Lineage != l.Lineage || len(p.People) != len(l.People) || len(p.People) == 0 {
		t.Fatalf("pulled state: lineage %q with %d people; local %q with %d\n%.300s", p.Lineage, len(p.People), l.Lineage, len(l.People), pulled.stdout)
	}
	// The reading and editing commands work on the workspace.
	if r := h.run("state", "list", "--no-people"); r.code != 0 || !strings.Contains(r.output(), `search.eng["Berlin"]`) || !strings.Contains(r.output(), `search.eng["Hamburg"]`) {
		t.Fatalf("state list:\n%s", r)
	}
	if r := h.run("state", "show", `search.eng["Berlin"]`); r.code != 0 || !strings.Contains(r.output(), "request_hash") {
		t.Fatalf("state show:\n%s", r)
	}
	if r := h.run("show"); r.code != 0 || !strings.Contains(r.output(), `workspace "default" in PostgreSQL`) || !strings.Contains(r.output(), "Searches: 2") {
		t.Fatalf("show:\n%s", r)
	}
	if r := h.run("force-unlock", "--force", "x"); r.code == 0 || !strings.Contains(r.output(), "nothing to force-unlock") {
		t.Fatalf("force-unlock on pg:\n%s", r)
	}
	if r := h.run("state", "rm", `search.eng["Hamburg"]`); r.code != 0 || !strings.Contains(r.output(), "Removed") {
		t.Fatalf("state rm:\n%s", r)
	}
	if r := h.run("plan", "--detailed-exitcode"); r.code == 0 || !strings.Contains(r.output(), `search.eng["Hamburg"]`) {
		t.Fatalf("plan after state rm should run the removed search again:\n%s", r)
	}
	// Workspaces: a second one is empty until pushed into.
	if r := h.run("workspace", "new", "uk"); r.code != 0 {
		t.Fatalf("workspace new:\n%s", r)
	}
	if r := h.run("--workspace", "uk", "plan", "--detailed-exitcode"); r.code == 0 {
		t.Fatalf("plan in an empty workspace has no changes:\n%s", r)
	}
	if r := h.run("workspace", "list"); r.code != 0 || !strings.Contains(r.output(), "* default") || !strings.Contains(r.output(), "  uk") {
		t.Fatalf("workspace list:\n%s", r)
	}
	if r := h.run("workspace", "delete", "default"); r.code == 0 {
		t.Fatalf("default workspace deleted:\n%s", r)
	}
	if r := h.run("workspace", "delete", "uk"); r.code != 0 {
		t.Fatalf("delete of an empty workspace:\n%s", r)
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
	testenv.SkipIfShort(t, "runs real processes")
	t.Parallel()
	onBothBackends(t, exportsFollowSharedState)
}

func exportsFollowSharedState(t *testing.T, backend string) {
	a := newHarness(t, sandbox.Options{Seed: 5, RateLimit: 50, RateWindow: time.Second / 50, NoLatency: true}, "")
	var cfg string
	if backend == "pg" {
		cfg = teamConfig(a.usePG(), "Berlin")
	} else {
		pgBlock := "leadsync {\n  backend \"pg\" {\n    schema_name = \"unused\"\n  }\n}\n"
		shared := filepath.Join(t.TempDir(), "state.db")
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
	a.writeConfig(cfg)
	b := a.workingCopy(cfg)
	mustPlan := func(h *harness, code int, want string) {
		t.Helper()
		if r := h.run("plan", "--detailed-exitcode"); r.code != code || !strings.Contains(r.output(), want) {
			t.Fatalf("plan in %s: want exit %d and %q:\n%s", h.dir, code, want, r)
		}
	}

	if r := a.run("apply", "--auto-approve"); r.code != 0 {
		t.Fatalf("A's apply:\n%s", r)
	}
	mustPlan(a, 0, "No changes")
	// B has the state but not the file: B's plan writes B's spreadsheet,
	// and B's apply writes it without touching the shared state.
	mustPlan(b, 2, "out/leads.csv (missing)")
	if r := b.run("apply", "--auto-approve"); r.code != 0 || !strings.Contains(r.output(), "Wrote out/leads.csv") {
		t.Fatalf("B's apply:\n%s", r)
	}
	mustPlan(b, 0, "No changes")
	mustPlan(a, 0, "No changes")
	if r := a.run("usage"); r.code != 0 {
		t.Fatalf("usage:\n%s", r)
	}
	mustPlan(a, 0, "No changes")

	// B erases the first person of A's file.
	csvA, err := os.ReadFile(filepath.Join(a.dir, "out", "leads.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(csvA), "\r\n")
	if len(lines) < 3 {
		t.Fatalf("A's CSV has no rows:\n%s", csvA)
	}
	nid := strings.Split(lines[1], ",")[1]
	if r := b.run("forget", "--auto-approve", nid); r.code != 0 {
		t.Fatalf("B's forget:\n%s", r)
	}
	mustPlan(a, 2, "state changed since out/leads.csv was written")
	if r := a.run("apply", "--auto-approve"); r.code != 0 {
		t.Fatalf("A's apply after B's forget:\n%s", r)
	}
	if csvA, _ := os.ReadFile(filepath.Join(a.dir, "out", "leads.csv")); strings.Contains(string(csvA), nid) {
		t.Fatalf("A's CSV still lists %s after the apply", nid)
	}
	mustPlan(a, 0, "No changes")
	mustPlan(b, 2, "state changed since out/leads.csv was written")
}
