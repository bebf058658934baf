package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
)

func TestShowPlanFile(t *testing.T) {
	dir := t.TempDir()
	p := &plan.Plan{FormatVersion: plan.FormatVersion, ConfigHash: "h", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Changes: []*plan.Change{{Address: "search.a", Kind: kind.Search, Action: plan.Run, Calls: 1, CallsMax: 1, Reason: plan.ReasonNew, Detail: `keywords="CTO"`}},
		Totals:  plan.Totals{Calls: 1, CallsMax: 1, Searches: 1, RateLimit: 1, DurationSecondsMax: 31}}
	if err := plan.Save(filepath.Join(dir, "x.plan"), p); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "junk"), []byte("not json"), 0o600)

	show := func(args ...string) (code int, out, errOut string) {
		f, o, e := configTestFactory(dir)
		code = Run(context.Background(), f, append([]string{"show"}, args...))
		return code, o.String(), e.String()
	}
	code, out, errOut := show("x.plan")
	if code != 0 {
		t.Fatalf("show x.plan: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(out, `+ search.a  run  1 call  keywords="CTO"`) || !strings.Contains(out, "Plan: 1 call (1 search)") {
		t.Errorf("text:\n%s", out)
	}
	if !strings.HasSuffix(out, "\nSaved plan made 2026-01-02 03:04 UTC. \"leadsync apply x.plan\" runs exactly this plan, and refuses it if the state or the configuration has changed since.\n") {
		t.Errorf("text lacks the saved-plan note:\n%s", out)
	}
	if code, out, errOut = show("--json", "x.plan"); code != 0 || !strings.Contains(out, `"format_version": "1"`) {
		t.Errorf("json: exit %d\n%s%s", code, out, errOut)
	}
	// The command's error for a file that is no plan (the error wraps
	// plan.ErrNotPlan, which show turns into what it expected).
	if err := showPlan(&Factory{Dir: dir}, &arguments.Show{PlanFile: "junk"}); !errors.Is(err, plan.ErrNotPlan) || !strings.HasPrefix(err.Error(), "junk: ") {
		t.Errorf("junk: %v", err)
	}
	if code, _, errOut = show("junk"); code != 1 || !strings.HasPrefix(errOut, "Error: junk: ") {
		t.Errorf("show junk: exit %d\n%s", code, errOut)
	}
	if code, _, errOut = show("missing.plan"); code != 1 || errOut != "Error: reading plan file missing.plan: no such file or directory\n" {
		t.Errorf("show missing.plan: exit %d\n%s", code, errOut)
	}
}
