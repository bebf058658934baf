package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/sandbox"
)

// TestExamplesAsShipped: every example, copied as it is shipped, is valid
// without a warning, fmt-clean and plans without a warning; the ones
// written for a real service (team, ci) reach `leadsync sandbox` through
// LEADSYNC_BASE_URL without an edit, and team's searches find people
// there. (What each example's apply does is checked by its own test:
// TestQuickstartWorkbook, TestSpendExample, TestMarketsExampleRefactor,
// split_complete.txtar.)
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
