package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/leadsync/leadsync/internal/sandbox"
)

// TestExamplesAsShipped: every example, copied as it is shipped, is valid
// without a warning, fmt-clean and plans without a warning; the ones
// written for a real service (team, ci) reach `leadsync sandbox` through
// LEADSYNC_BASE_URL without an edit, and team's searches find people
// there. (What each example's apply does is checked by its own test:
// TestQuickstartWorkbook, TestSpendExample, TestMarketsExampleRefactor,
// TestSplitExample.)
func TestExamplesAsShipped(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"quickstart", "split", "spend", "job-changes", "markets", "markets/before", "ci/leads", "team"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h := newProject(t, "")
			if err := os.CopyFS(h.dir, os.DirFS(repoFile("examples", name))); err != nil {
				t.Fatal(err)
			}
			if name == "team" || name == "ci/leads" {
				srv, url := serveSandbox(sandbox.Options{}, t.Cleanup)
				h.env = append(h.env, "LEADSYNC_BASE_URL="+url, "LEADSYNC_API_KEY="+srv.Key())
			}
			cmds := [][]string{{"validate"}, {"fmt", "--check", "--recursive"}, {"plan"}}
			if name == "ci/leads" {
				// Its state is in PostgreSQL (the CI's secret): its
				// plan is ci_example_test.go's (internal/cli).
				cmds = cmds[:2]
			}
			for _, args := range cmds {
				r := h.run(args...)
				if r.code != 0 || strings.Contains(r.output(), "Warning") {
					t.Errorf("exit %d, or a warning:\n%s", r.code, r)
				}
			}
		})
	}
}

// TestTeamExampleFindsPeople: the team example's searches find people in
// `leadsync sandbox`, reached through LEADSYNC_BASE_URL.
func TestTeamExampleFindsPeople(t *testing.T) {
	t.Parallel()
	h := newProject(t, "")
	if err := os.CopyFS(h.dir, os.DirFS(repoFile("examples", "team"))); err != nil {
		t.Fatal(err)
	}
	srv, url := serveSandbox(sandbox.Options{}, t.Cleanup)
	h.env = append(h.env, "LEADSYNC_BASE_URL="+url+"/", "LEADSYNC_API_KEY="+srv.Key())
	r := h.run("apply", "--auto-approve", "--target", "search.consultants", "--target", `search.cto["Berlin"]`)
	if r.code != 0 {
		t.Fatalf("apply:\n%s", r)
	}
	for _, search := range []string{`search.consultants`, `search.cto\["Berlin"\]`} {
		if !regexp.MustCompile(`(?m)^  ` + search + `: [1-9][0-9]* leads`).MatchString(r.stdout) {
			t.Errorf("%s found nobody:\n%s", search, r)
		}
	}
	if _, err := os.Stat(filepath.Join(h.dir, "out", "crm-import.csv")); err != nil {
		t.Error(err)
	}
	// An address that cannot be one is refused, saying where it came from.
	h.env = append(h.env, "LEADSYNC_BASE_URL=http://example.com")
	if r := h.run("plan"); r.code != 1 || !strings.Contains(r.stderr, "Invalid LEADSYNC_BASE_URL") || !strings.Contains(r.stderr, "uses http://") {
		t.Errorf("an http:// address that is not loopback:\n%s", r)
	}
}

// TestSplitExample applies examples/split against the built-in sandbox,
// as its comment says to, and checks what the README says of it: the
// plan's bound on the calls, the calls the apply makes, the people it
// finds and that the result is complete. The people found are exactly
// those the sandbox matches, and the workbook holds each of them once.
func TestSplitExample(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(repoFile("README.md"))
	if err != nil {
		t.Fatal(err)
	}
	claim := regexp.MustCompile(`plan bounds it at (\d+) calls, and\s+against the sandbox the apply makes (\d+) and finds ([\d,]+) people, "complete"`).FindSubmatch(readme)
	if claim == nil {
		t.Fatal("README.md no longer gives the split example's figures; update this test with it")
	}
	bound, calls, people := string(claim[1]), string(claim[2]), string(claim[3])

	h := newProject(t, "")
	src, err := os.ReadFile(repoFile("examples", "split", "main.leads.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	// The same calls and people, paced faster than the service's 1 call/s
	// so that the test takes a second or two, not half a minute.
	cfg := strings.Replace(string(src), "parallelism = 4", "parallelism = 4\n  rate_limit  = 20", 1)
	if cfg == string(src) {
		t.Fatal("examples/split has no parallelism = 4 to pace faster beside")
	}
	h.writeConfig(cfg)

	if r := h.run("plan"); r.code != 0 || !strings.Contains(r.stdout, "Plan: "+bound+" calls at most") {
		t.Errorf("the plan does not bound the calls at %s, as the README says:\n%s", bound, r)
	}
	r := h.run("apply", "--auto-approve")
	if r.code != 0 {
		t.Fatalf("apply:\n%s", r)
	}
	for _, want := range []string{
		"Apply complete: " + calls + " calls made (at most " + bound + " planned)",
		people + " people found: complete",
		"Wrote out/engineers-de.xlsx (1 sheet + Summary, " + people + " rows)",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("apply does not say %q, as the README has it:\n%s", want, r)
		}
	}

	st, err := loadState(h.dir, "", "")
	if err != nil {
		t.Fatal(err)
	}
	rec := st.Searches["search.engineers_de"]
	if rec == nil || rec.Split == nil {
		t.Fatalf("no split search in the state: %+v", rec)
	}
	ms, err := sandbox.New(sandbox.Options{}).Matching(rec.Request)
	if err != nil {
		t.Fatal(err)
	}
	found, truth, err := splitSets(st, rec, ms)
	if err != nil {
		t.Fatal(err)
	}
	if extra, missing := setDiff(found, truth), setDiff(truth, found); len(extra)+len(missing) > 0 || !rec.SplitSummary().Complete {
		t.Errorf("%d people found, %d of them not matching; %d matching people missing; complete=%v", len(found), len(extra), len(missing), rec.SplitSummary().Complete)
	}
	x, err := excelize.OpenFile(filepath.Join(h.dir, "out", "engineers-de.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	rows, err := x.GetRows("Engineers in Germany")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows)-1 != len(truth) {
		t.Errorf("the sheet has %d people, the sandbox matches %d", len(rows)-1, len(truth))
	}
}
