package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/testenv"
)

const planTestConfig = `
api {
  sandbox = true
}

search "cto" {
  for_each = toset(["Berlin", "Hamburg"])
  keywords = "CTO"
  city     = each.value
  max_results = 20
}

enrich "contacts" {
  from  = [search.cto]
  limit = 10
}
`

// runPlanCmd runs `leadsync plan args...` in dir with a billing stub.
func runPlanCmd(t *testing.T, dir string, remaining int, args ...string) (code int, stdout, stderr string, calls int) {
	t.Helper()
	billing := func(context.Context) (*api.Usage, error) {
		calls++
		if remaining < 0 {
			return nil, errors.New("403 Forbidden")
		}
		return &api.Usage{RemainingRequests: remaining}, nil
	}
	io, _, out, errOut := TestStreams()
	f := &Factory{IO: io, Dir: dir, Getenv: func(string) string { return "" }, Environ: func() []string { return nil },
		Now:     func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) },
		Service: func(*config.Config) (api.Service, error) { return billingOnly(billing), nil }}
	cmd := newPlanCmd(f)
	// Never nil: cobra reads os.Args for nil, the test binary's own
	// arguments (-test.run X gave "plan takes no arguments").
	cmd.SetArgs(append([]string{}, args...))
	cmd.SetOut(out)
	cmd.SetErr(errOut)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	var ee *exitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.code
	default:
		code = ExitError
		errOut.WriteString("Error: " + err.Error() + "\n")
	}
	return code, out.String(), errOut.String(), calls
}

// billingOnly is a service whose only operation is Billing: a plan makes
// no other call.
type billingOnly func(context.Context) (*api.Usage, error)

func (b billingOnly) Billing(ctx context.Context) (*api.Usage, error) { return b(ctx) }
func (billingOnly) Fields(context.Context) ([]api.Field, error)       { panic("plan calls Fields") }
func (billingOnly) Search(context.Context, api.Generation, api.SearchRequest) (*api.SearchResult, error) {
	panic("plan calls Search")
}
func (billingOnly) Page(context.Context, api.Generation, api.PageRequest) (*person.Profile, error) {
	panic("plan calls Page")
}
func (billingOnly) Enrich(context.Context, api.PageRequest) (*person.EnrichedProfile, error) {
	panic("plan calls Enrich")
}

func planDir(t *testing.T, hcl string) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(hcl), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPlanCommand(t *testing.T) {
	dir := planDir(t, planTestConfig)

	code, out, errOut, calls := runPlanCmd(t, dir, 9114)
	if code != 0 || calls != 1 {
		t.Fatalf("code %d, billing calls %d, stderr:\n%s", code, calls, errOut)
	}
	for _, want := range []string{`+ search.cto["Berlin"]`, "run", "up to 10 from searches that will run",
		"Plan: 12 calls at most (2 searches, up to 10 enrichments)", "Quota: 9,114 requests left this month -> 9,102 after"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	code, out, _, calls = runPlanCmd(t, dir, 9114, "--offline", "--detailed-exitcode", "--json")
	if code != ExitChanges || calls != 0 {
		t.Errorf("--offline --detailed-exitcode: code %d, billing calls %d", code, calls)
	}
	var js map[string]any
	if err := json.Unmarshal([]byte(out), &js); err != nil || js["format_version"] != "1" {
		t.Errorf("--json: %v\n%s", err, out)
	}
	// The quota's minimum fields are always there; unknown is null.
	quota, _ := js["quota"].(map[string]any)
	if rem, present := quota["remaining_requests"]; !present || rem != nil || quota["checked"] != false {
		t.Errorf("--offline --json: quota %v; want remaining_requests null and checked false", js["quota"])
	}
	_, out, _, _ = runPlanCmd(t, dir, 9114, "--json")
	js = nil
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	if quota, _ := js["quota"].(map[string]any); quota["remaining_requests"] != 9114.0 || quota["checked"] != true || quota["after"] != 9102.0 {
		t.Errorf("--json: quota %v; want remaining_requests 9114, checked true, after 9102", js["quota"])
	}

	code, _, errOut, _ = runPlanCmd(t, dir, 50)
	if code != ExitError || !strings.Contains(errOut, "The plan could leave too few requests this month") {
		t.Errorf("low quota: code %d\n%s", code, errOut)
	}

	code, _, errOut, _ = runPlanCmd(t, dir, -1)
	if code != ExitError || !strings.Contains(errOut, "Error: reading the remaining requests of this month: 403 Forbidden") ||
		!strings.Contains(errOut, "--offline") {
		t.Errorf("billing failure: code %d\n%s", code, errOut)
	}

	code, out, errOut, _ = runPlanCmd(t, dir, 9114, "--out", "x.plan", "--target", `search.cto["Berlin"]`)
	if code != 0 || !strings.Contains(out, "Saved the plan to x.plan") {
		t.Fatalf("--out: code %d\n%s%s", code, out, errOut)
	}
	fi, err := os.Stat(filepath.Join(dir, "x.plan"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("saved plan: %v %v", err, fi)
	}
	if code, sout, serr := runIn(t, dir, "show", "x.plan"); code != 0 || !strings.Contains(sout, `search.cto["Berlin"]`) ||
		strings.Contains(sout, "Hamburg") {
		t.Errorf("show saved plan: exit %d\n%s%s", code, sout, serr)
	}

	code, _, errOut, _ = runPlanCmd(t, dir, 9114, "--target", "search.nope")
	if code != ExitError || !strings.Contains(errOut, `Unknown target "search.nope"`) {
		t.Errorf("bad target: code %d\n%s", code, errOut)
	}
}

func TestPlanCommandConfigError(t *testing.T) {
	dir := planDir(t, "search \"x\" {\n  keywords = 1 +\n}\n")
	code, _, errOut, calls := runPlanCmd(t, dir, 9114)
	if code != ExitError || calls != 0 || !strings.Contains(errOut, "main.leads.hcl line 2") {
		t.Errorf("code %d, calls %d\n%s", code, calls, errOut)
	}
}

// TestPlanGC: a plan in a real process lets the heap grow to three times
// what the collector last kept, and sets it back afterwards; GOGC in the
// environment wins. Tests' factories leave the collector alone.
func TestPlanGC(t *testing.T) {
	before := testenv.GCPercent()
	t.Setenv("GOGC", "")
	restore := planGC()
	if got := testenv.GCPercent(); got != planGCPercent {
		t.Errorf("while planning GOGC is %d, want %d", got, planGCPercent)
	}
	restore()
	if got := testenv.GCPercent(); got != before {
		t.Errorf("after the plan GOGC is %d, want %d again", got, before)
	}
	t.Setenv("GOGC", "50")
	restore = planGC()
	if got := testenv.GCPercent(); got != before {
		t.Errorf("with GOGC=50 set, the plan changed GOGC to %d", got)
	}
	restore()
	if NewSystemFactory().PlanGC == nil {
		t.Error("a real process's plan leaves the collector as it is")
	}
}
