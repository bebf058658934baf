package views

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

// TestPlanTextGolden draws the plans of internal/plan's golden cases: each
// ../plan/testdata/<name>.json (the plan Build made, compared there) is
// drawn and compared with testdata/<name>.txt. fresh_color is the fresh
// plan drawn with colour.
func TestPlanTextGolden(t *testing.T) {
	for _, name := range []string{"fresh", "fresh_color", "fresh_offline", "offline_last_known", "partly_run",
		"all_run", "stale", "removed", "changed_filters", "targets_replace", "over_budget", "tracked",
		"generation2", "credits_short", "excluded", "moved"} {
		t.Run(name, func(t *testing.T) {
			color := strings.HasSuffix(name, "_color")
			data, err := os.ReadFile(filepath.Join("..", "plan", "testdata", strings.TrimSuffix(name, "_color")+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var p plan.Plan
			if err := json.Unmarshal(data, &p); err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := PlanText(&b, &p, color); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", name+".txt"), b.Bytes())
		})
	}
}

// TestPlanTextExamples plans the repository's examples from an empty state,
// with the real configuration loader: the actions, counts and totals a new
// user sees.
func TestPlanTextExamples(t *testing.T) {
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for _, name := range []string{"quickstart", "team", "split", "job-changes", "spend", "markets"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("..", "..", "examples", name)
			cfg, diags := config.Load(config.LoadOptions{Dir: dir, Environ: []string{"LEADSYNC_API_KEY=test-key"}})
			if diags.HasErrors() {
				t.Fatalf("examples/%s does not load: %s", name, diags.Error())
			}
			p, _ := plan.Build(cfg, state.New(), plan.Options{Now: t0, Offline: true, FileExists: func(string) bool { return false }})
			var b bytes.Buffer
			if err := PlanText(&b, p, false); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "example_"+name+".txt"), b.Bytes())
		})
	}
}

func TestPlanTextHelpers(t *testing.T) {
	for s, want := range map[int]string{0: "0 s", 82: "82 s", 119: "119 s", 120: "2 min", 3601: "61 min", 37530: "10 h 26 min"} {
		if got := formatSeconds(s); got != want {
			t.Errorf("formatSeconds(%d) = %q, want %q", s, got, want)
		}
	}
	if got := formatRate(0.5); got != "0.5 calls/s" {
		t.Errorf("formatRate(0.5) = %q", got)
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 9114: "9,114", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestPlanViews: the JSON view writes the plan's JSON, the human view its
// text, with colour only when asked.
func TestPlanViews(t *testing.T) {
	p := &plan.Plan{Changes: []*plan.Change{{Address: "search.a", Kind: kind.Search, Action: plan.Run, CallsMax: 1, Calls: 1}},
		Totals: plan.Totals{Calls: 1, CallsMax: 1, Searches: 1, RateLimit: 1}}
	var js, text, color bytes.Buffer
	if err := NewPlan(&js, true, true).Plan(p); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js.Bytes(), &m); err != nil || m["changes"] == nil {
		t.Errorf("JSON view: %v\n%s", err, js.String())
	}
	if err := NewPlan(&text, false, false).Plan(p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "+ search.a  run  1 call") || strings.Contains(text.String(), "\x1b[") {
		t.Errorf("human view:\n%q", text.String())
	}
	if err := NewPlan(&color, false, true).Plan(p); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(color.String(), "\x1b[32m+\x1b[0m") {
		t.Errorf("human view with colour lacks the green +:\n%q", color.String())
	}
}

// TestQuotaLineCredits: "up to" only when the credits are a bound.
func TestQuotaLineCredits(t *testing.T) {
	tests := []struct {
		credits, max int
		want         string
	}{
		{0, 0, "Credits: max_credits 500."},
		{8, 8, "Credits: 8 of max_credits 500."},
		{3, 8, "Credits: up to 8 of max_credits 500."},
		{0, 1200, "Credits: up to 1,200 of max_credits 500."},
	}
	for _, tt := range tests {
		p := &plan.Plan{Totals: plan.Totals{Credits: tt.credits, CreditsMax: tt.max}, Quota: plan.Quota{MaxCredits: 500}}
		if got := quotaLine(p); !strings.HasSuffix(got, tt.want) {
			t.Errorf("credits %d, max %d: %q, want it to end %q", tt.credits, tt.max, got, tt.want)
		}
	}
}

// TestQuotaLineSecondGeneration: the requests after the plan count only
// the calls that use the quota, and the line says so when second-generation
// calls use none.
func TestQuotaLineSecondGeneration(t *testing.T) {
	n := func(v int) *int { return &v }
	tests := []struct {
		name   string
		totals plan.Totals
		quota  plan.Quota
		want   string
	}{
		{name: "second-generation calls use no quota",
			totals: plan.Totals{Calls: 5, CallsMax: 5},
			quota:  plan.Quota{Checked: true, RemainingRequests: n(9997), After: n(9997), MinRemainingRequests: 9997},
			want:   "Quota: 9,997 requests left this month -> 9,997 after (min_remaining_requests 9,997; 5 second-generation calls use none). Credits: max_credits 500."},
		{name: "mixed generations with bounds",
			totals: plan.Totals{Calls: 2, CallsMax: 52, QuotaCalls: 0, QuotaCallsMax: 50, Credits: 0, CreditsMax: 50},
			quota:  plan.Quota{Checked: true, RemainingRequests: n(9114), After: n(9064), MinRemainingRequests: 100},
			want:   "Quota: 9,114 requests left this month -> 9,064 after (min_remaining_requests 100; 2 second-generation calls use none)."},
		{name: "split searches in the second generation",
			totals: plan.Totals{Calls: 1, CallsMax: 9},
			quota:  plan.Quota{Checked: true, RemainingRequests: n(100), After: n(100), MinRemainingRequests: 0},
			want:   "(min_remaining_requests 0; up to 9 second-generation calls use none)."},
		{name: "first generation only: no note",
			totals: plan.Totals{Calls: 5, CallsMax: 5, QuotaCalls: 5, QuotaCallsMax: 5},
			quota:  plan.Quota{Checked: true, RemainingRequests: n(9114), After: n(9109), MinRemainingRequests: 100},
			want:   "Quota: 9,114 requests left this month -> 9,109 after (min_remaining_requests 100). Credits"},
		// Saved by an earlier version: no quota_calls_max, every call
		// counted in after. No note about the second generation then.
		{name: "a plan without quota_calls_max",
			totals: plan.Totals{Calls: 5, CallsMax: 5},
			quota:  plan.Quota{Checked: true, RemainingRequests: n(9114), After: n(9109), MinRemainingRequests: 100},
			want:   "Quota: 9,114 requests left this month -> 9,109 after (min_remaining_requests 100). Credits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.quota
			q.MaxCredits = 500
			p := &plan.Plan{Totals: tt.totals, Quota: q}
			if got := quotaLine(p); !strings.Contains(got, tt.want) {
				t.Errorf("%q\nwant it to contain %q", got, tt.want)
			}
		})
	}
}

// TestQuotaLineBalance: the last known credit balance with its age and
// what the plan leaves of it.
func TestQuotaLineBalance(t *testing.T) {
	created := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	twoHours := created.Add(-2 * time.Hour)
	n := func(v int) *int { return &v }
	tests := []struct {
		name   string
		totals plan.Totals
		quota  plan.Quota
		credit plan.CreditBalance
		want   string
	}{
		{name: "balance unknown",
			totals: plan.Totals{Credits: 2, CreditsMax: 2},
			want:   "Quota: not checked. Credits: 2 of max_credits 500."},
		{name: "certain credits within the balance",
			totals: plan.Totals{Credits: 2, CreditsMax: 2},
			credit: plan.CreditBalance{Balance: n(3), CheckedAt: &twoHours, After: n(1)},
			want:   "Quota: not checked. Credits: 2 of max_credits 500; 3 left as of 2 h ago -> 1 after."},
		{name: "a bound within the balance",
			totals: plan.Totals{Credits: 2, CreditsMax: 40},
			credit: plan.CreditBalance{Balance: n(1000), CheckedAt: &twoHours, After: n(960)},
			want:   "Credits: up to 40 of max_credits 500; 1,000 left as of 2 h ago -> at least 960 after."},
		{name: "a bound above the balance",
			totals: plan.Totals{Credits: 2, CreditsMax: 40},
			credit: plan.CreditBalance{Balance: n(3), CheckedAt: &twoHours, After: n(-37)},
			want:   "Credits: up to 40 of max_credits 500; 3 left as of 2 h ago -> may not be enough for this plan (see the warning)."},
		{name: "certain credits above the balance",
			totals: plan.Totals{Credits: 2, CreditsMax: 2},
			credit: plan.CreditBalance{Balance: n(0), CheckedAt: &twoHours, After: n(-2)},
			want:   "Credits: 2 of max_credits 500; 0 left as of 2 h ago -> not enough for this plan (see the warning)."},
		{name: "no credits planned",
			credit: plan.CreditBalance{Balance: n(0), CheckedAt: &twoHours, After: n(0)},
			want:   "Credits: max_credits 500; 0 left as of 2 h ago."},
		{name: "a balance without its time",
			totals: plan.Totals{Credits: 1, CreditsMax: 1},
			credit: plan.CreditBalance{Balance: n(5), After: n(4)},
			want:   "Credits: 1 of max_credits 500; 5 left -> 4 after."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.quota
			q.MaxCredits = 500
			p := &plan.Plan{CreatedAt: created, Totals: tt.totals, Quota: q, Credits: tt.credit}
			if got := quotaLine(p); !strings.Contains(got, tt.want) {
				t.Errorf("%q\nwant it to contain %q", got, tt.want)
			}
		})
	}
}
