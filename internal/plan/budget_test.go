package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/config"
)

func TestBillingMonth(t *testing.T) {
	day := func(s string) time.Time {
		d, err := time.Parse("2006-01-02 15:04", s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tests := []struct {
		inv, now    string
		start, next string
		invoicing   bool
	}{
		{"2025-03-17", "2026-11-20 09:00", "2026-11-17", "2026-12-17", true},
		{"2025-03-17", "2026-11-17 00:00", "2026-11-17", "2026-12-17", true},
		{"2025-03-17", "2026-11-16 23:59", "2026-10-17", "2026-11-17", true},
		{"2025-01-31", "2026-02-15 12:00", "2026-01-31", "2026-02-28", true}, // a shorter month ends it on its last day
		{"2025-01-31", "2026-03-01 12:00", "2026-02-28", "2026-03-31", true},
		{"2025-05-01", "2026-01-01 00:00", "2026-01-01", "2026-02-01", true},
		{"", "2026-11-20 09:00", "2026-11-01", "2026-12-01", false},
		{"not a date", "2026-12-31 23:00", "2026-12-01", "2027-01-01", false},
	}
	for _, tt := range tests {
		start, next, inv := BillingMonth(tt.inv, day(tt.now))
		if MonthKey(start) != tt.start || MonthKey(next) != tt.next || inv != tt.invoicing {
			t.Errorf("BillingMonth(%q, %s) = %s, %s, %v; want %s, %s, %v", tt.inv, tt.now, MonthKey(start), MonthKey(next), inv, tt.start, tt.next, tt.invoicing)
		}
	}
}

func TestBudgetPlan(t *testing.T) {
	month := time.Date(2026, 11, 17, 0, 0, 0, 0, time.UTC)
	state := func(credits, requests int) *BudgetState {
		return &BudgetState{Month: month, Next: month.AddDate(0, 1, 0), Invoicing: true, Spent: &Spending{credits, requests}}
	}
	tests := []struct {
		name     string
		budget   config.Budget
		bs       *BudgetState
		text     string
		severity hcl.DiagnosticSeverity // 0: no diagnostic
	}{
		{"fits", config.Budget{CreditsPerMonth: 2000, RequestsPerMonth: 6000, Hard: true}, state(1240, 3100),
			"Budget: 1,240 of 2,000 credits spent this billing month; this plan up to 50 credits -> at most 1,290 credits; 3,100 of 6,000 requests spent this billing month; this plan up to 53 requests -> at most 3,153 requests.", 0},
		{"hard, passed", config.Budget{CreditsPerMonth: 1280, Hard: true}, state(1240, 0),
			"Budget: 1,240 of 1,280 credits spent this billing month; this plan up to 50 credits -> at most 1,290 credits.", hcl.DiagError},
		{"soft, passed", config.Budget{RequestsPerMonth: 3120}, state(0, 3100),
			"Budget: 3,100 of 3,120 requests spent this billing month; this plan up to 53 requests -> at most 3,153 requests.", hcl.DiagWarning},
		{"not checked", config.Budget{CreditsPerMonth: 10, Hard: true}, &BudgetState{Month: month, Next: month.AddDate(0, 1, 0), Invoicing: true, Note: "no API key tells the account"},
			"Budget: not checked (no API key tells the account).", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := designFixture()
			bg := tt.budget
			f.cfg.Settings.Budget = &bg
			o := f.opts()
			o.Budget = tt.bs
			p, diags := Build(f.cfg, f.st, o)
			if got := budgetText(p.Budget); got != tt.text {
				t.Errorf("text %q\nwant %q", got, tt.text)
			}
			var found *hcl.Diagnostic
			for _, d := range diags {
				if strings.Contains(d.Summary, "monthly budget") {
					found = d
				}
			}
			switch {
			case tt.severity == 0 && found != nil:
				t.Errorf("unexpected %s", found.Summary)
			case tt.severity != 0 && (found == nil || found.Severity != tt.severity):
				t.Errorf("diagnostic %+v, want severity %v", found, tt.severity)
			case found != nil && strings.Contains(found.Detail, "Budget:"):
				// The Budget line is drawn once, with the plan.
				t.Errorf("the diagnostic repeats the Budget line: %q", found.Detail)
			case found != nil && !strings.Contains(found.Detail, "It may pass the limit of "):
				t.Errorf("the diagnostic does not say which limit: %q", found.Detail)
			}
			if p.Budget.Exceeded != (tt.severity != 0) || p.Budget.MonthStart != "2026-11-17" || p.Budget.MonthFrom != "invoicing_start_date" {
				t.Errorf("budget %+v", p.Budget)
			}
		})
	}
}
