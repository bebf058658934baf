package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/plan"
)

func TestShowPlanFile(t *testing.T) {
	dir := t.TempDir()
	p := &plan.Plan{FormatVersion: plan.FormatVersion, ConfigHash: "h", CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Changes: []*plan.Change{{Address: "search.a", Kind: plan.KindSearch, Action: plan.Run, Calls: 1, CallsMax: 1, Reason: plan.ReasonNew, Detail: `keywords="CTO"`}},
		Totals:  plan.Totals{Calls: 1, CallsMax: 1, Searches: 1, RateLimit: 1, DurationSecondsMax: 31}}
	if err := plan.Save(filepath.Join(dir, "x.plan"), p); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "junk"), []byte("not json"), 0o600)

	io, _, out, _ := TestStreams()
	f := &Factory{IO: io, Dir: dir}
	if err := showPlanFile(f, "x.plan", false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `+ search.a  run  1 call  keywords="CTO"`) || !strings.Contains(out.String(), "Plan: 1 call (1 search)") {
		t.Errorf("text:\n%s", out)
	}
	if !strings.HasSuffix(out.String(), "\nSaved plan made 2026-01-02 03:04 UTC. \"leadsync apply x.plan\" runs exactly this plan, and refuses it if the state or the configuration has changed since.\n") {
		t.Errorf("text lacks the saved-plan note:\n%s", out)
	}
	out.Reset()
	if err := showPlanFile(f, "x.plan", true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"format_version": "1"`) {
		t.Errorf("json:\n%s", out)
	}
	err := showPlanFile(f, "junk", false)
	if !errors.Is(err, plan.ErrNotPlan) || !strings.HasPrefix(err.Error(), "junk: ") {
		t.Errorf("junk: %v", err)
	}
	if err := showPlanFile(f, "missing.plan", false); err == nil || err.Error() != "reading plan file missing.plan: no such file or directory" {
		t.Errorf("missing: %v", err)
	}
}
