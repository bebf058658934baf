package e2e

// examples/spend prints what its README says it prints.

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/cli"
)

// TestSpendExample runs examples/spend (built-in sandbox) in a copy and
// compares its plans with the blocks of its README: the first plan, and
// the plan once its search has run. Then it applies, and the next plan
// counts what the apply spent against the budget.
// countedSince is the moment the Budget line says the ledger counts from.
var countedSince = regexp.MustCompile(`Counted since \d{4}-\d\d-\d\d \d\d:\d\d UTC`)

func TestSpendExample(t *testing.T) {
	t.Parallel()
	src := repoFile("examples", "spend")
	dir := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(dir, rel), string(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(src, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	block := func(name string) string {
		m := regexp.MustCompile("(?s)<!-- spend-example: " + regexp.QuoteMeta(name) + " -->\n```\n(.*?)```").FindSubmatch(readme)
		if m == nil {
			t.Fatalf("README has no block %q", name)
		}
		return string(m[1])
	}
	run := func(args ...string) string {
		t.Helper()
		ios, _, out, errOut := cli.TestStreams()
		f := &cli.Factory{IO: ios, Getenv: func(string) string { return "" }, Environ: func() []string { return nil }, Now: time.Now, Dir: dir}
		if code := cli.Run(context.Background(), f, args); code != 0 {
			t.Fatalf("leadsync %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		// The ledger counts since its first record, this run's moment:
		// the README shows one.
		return countedSince.ReplaceAllString(out.String(), "Counted since 2026-11-28 09:12 UTC")
	}
	if got, want := run("plan"), block("plan"); got != want {
		t.Errorf("first plan:\n%s\nREADME says:\n%s", got, want)
	}
	run("apply", "--auto-approve", "--target", "search.ctos")
	if got, want := run("plan"), block("plan after the search"); got != want {
		t.Errorf("plan after the search:\n%s\nREADME says:\n%s", got, want)
	}
	// The same calls, paced faster than the service's 1 call/s so that the
	// test takes a second, not ten.
	cfg, _ := os.ReadFile(filepath.Join(dir, "main.leads.hcl"))
	fast := strings.Replace(string(cfg), "sandbox = true", "sandbox    = true\n  rate_limit = 20", 1)
	writeFile(t, filepath.Join(dir, "main.leads.hcl"), fast)
	ios, _, out, errOut := cli.TestStreams()
	f := &cli.Factory{IO: ios, Getenv: func(string) string { return "" }, Environ: func() []string { return nil }, Now: time.Now, Dir: dir}
	if code := cli.Run(context.Background(), f, []string{"apply", "--auto-approve"}); code != 0 ||
		!strings.Contains(out.String(), "9 credits charged") || !strings.Contains(out.String(), "Not spent: 1 credit (imported 1).") {
		t.Errorf("apply: exit %d\n%s%s", code, out, errOut)
	}
	// Something to do again (a lower max_results keeps fewer), and the
	// budget counts the month's nine credits.
	writeFile(t, filepath.Join(dir, "main.leads.hcl"), strings.Replace(fast, "max_results    = 20", "max_results    = 19", 1))
	if out := run("plan"); !strings.Contains(out, "Budget: 9 of 200 credits spent this billing month") {
		t.Errorf("plan after the apply:\n%s", out)
	}
}
