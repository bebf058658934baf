package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// BudgetState is what the caller read of the budget's month: its start
// (BillingMonth) and what the API account spent in it so far (the
// backend's ledger). Nil Spent with a Note: it could not be read.
type BudgetState struct {
	Month     time.Time
	Next      time.Time
	Invoicing bool // the month follows the invoicing start date
	Spent     *Spending
	Note      string
	// Since is when the ledger began to count the account's calls (its
	// first record); nil when not known.
	Since *time.Time
}

// Spending is credits and requests of the monthly quota.
type Spending struct {
	Credits  int `json:"credits"`
	Requests int `json:"requests"`
}

// BillingMonth returns the billing month now falls in: from the service's
// invoicing start date (its day of the month, on the last day of a
// shorter month), else the calendar month; next is when the following one
// starts. invoicing is whether the start date was used.
func BillingMonth(invoicingStart string, now time.Time) (start, next time.Time, invoicing bool) {
	now = now.UTC()
	day := 1
	if d, err := time.Parse("2006-01-02", strings.TrimSpace(invoicingStart)); err == nil {
		day, invoicing = d.Day(), true
	}
	on := func(y int, m time.Month) time.Time {
		last := time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
		return time.Date(y, m, min(day, last), 0, 0, 0, 0, time.UTC)
	}
	start = on(now.Year(), now.Month())
	if start.After(now) {
		start = on(now.Year(), now.Month()-1)
	}
	next = on(start.Year(), start.Month()+1)
	return start, next, invoicing
}

// MonthKey names a billing month in the ledger: its start date.
func MonthKey(start time.Time) string { return start.Format("2006-01-02") }

// Budget is the plan against leadsync { budget }: what the account spent
// this billing month, what the plan may add, and whether that passes it.
type Budget struct {
	// MonthStart is the first day of the billing month (YYYY-MM-DD);
	// MonthFrom says how it was found: "invoicing_start_date" or
	// "calendar".
	MonthStart string `json:"month_start"`
	NextMonth  string `json:"next_month"`
	MonthFrom  string `json:"month_from"`
	Enforce    string `json:"enforce"`
	// Credits and Requests are nil when the budget sets no such limit.
	Credits  *BudgetLine `json:"credits"`
	Requests *BudgetLine `json:"requests"`
	// Checked is false when what was spent could not be read (Note says
	// why): then nothing is known to pass.
	Checked bool   `json:"checked"`
	Note    string `json:"note,omitempty"`
	// CountedSince is when the ledger began to count the account's calls
	// (RFC 3339), when known; WholeMonth is false when that is after the
	// month started: what was spent before, or with other tools, is not
	// in Spent (the text says so).
	CountedSince string `json:"counted_since,omitempty"`
	WholeMonth   bool   `json:"whole_month"`
	// Exceeded is true when the plan may pass a limit: a hard budget
	// refuses the plan (an error diagnostic), a soft one warns.
	Exceeded bool `json:"exceeded"`
}

// BudgetLine is one limit of the budget.
type BudgetLine struct {
	Limit int `json:"limit"`
	// Spent is what the ledger holds this month (every run, teammate and
	// workspace of the backend; an enrichment whose outcome is unknown
	// counts, as it may have been charged).
	Spent int `json:"spent"`
	// PlanMax is what this plan may add; AfterMax Spent plus PlanMax.
	PlanMax  int `json:"plan_max"`
	AfterMax int `json:"after_max"`
}

// budget checks the plan against the budget.
func (b *builder) budget() {
	bg := b.cfg.Settings.Budget
	if bg == nil || b.opts.Budget == nil {
		return
	}
	bs := b.opts.Budget
	p := &Budget{MonthStart: MonthKey(bs.Month), NextMonth: MonthKey(bs.Next), MonthFrom: "calendar", Enforce: bg.Enforce(), Note: bs.Note}
	if bs.Invoicing {
		p.MonthFrom = "invoicing_start_date"
	}
	p.WholeMonth = true
	if bs.Since != nil {
		p.CountedSince = bs.Since.UTC().Format(time.RFC3339)
		p.WholeMonth = !bs.Since.After(bs.Month)
	}
	t := b.p.Totals
	line := func(limit, spent, planMax int) *BudgetLine {
		if limit <= 0 {
			return nil
		}
		l := &BudgetLine{Limit: limit, Spent: spent, PlanMax: planMax, AfterMax: spent + planMax}
		if l.AfterMax > limit && planMax > 0 {
			p.Exceeded = true
		}
		return l
	}
	spent := Spending{}
	if bs.Spent != nil {
		spent, p.Checked = *bs.Spent, true
	}
	p.Credits = line(bg.CreditsPerMonth, spent.Credits, t.CreditsMax)
	p.Requests = line(bg.RequestsPerMonth, spent.Requests, t.QuotaCallsMax)
	if !p.Checked {
		p.Exceeded = false
	}
	b.p.Budget = p
	if !p.Exceeded {
		return
	}
	sev, summary := hcl.DiagError, "The plan could pass the monthly budget"
	how := "Plan part of the work (--target), lower a limit or max_results, wait for the next billing month (from " + p.NextMonth + "), raise the budget, or set enforce = \"soft\" to be warned only."
	if !bg.Hard {
		sev, summary = hcl.DiagWarning, "The plan may pass the monthly budget"
		how = "The budget is soft (enforce = \"soft\"): apply goes on, and the spending is recorded."
	}
	b.diags = append(b.diags, &hcl.Diagnostic{
		Severity: sev,
		Summary:  summary,
		Detail:   fmt.Sprintf("%s\n\n%s", passedText(p), how),
		Subject:  rangePtr(bg.DeclRange),
	})
}

// budgetText is the plan's budget in words: "Budget: 1,240 of 2,000
// credits spent this billing month; this plan up to 50 -> at most 1,290."
func budgetText(p *Budget) string {
	if p == nil {
		return ""
	}
	if !p.Checked {
		return "Budget: not checked (" + p.Note + ")."
	}
	var parts []string
	for _, x := range []struct {
		l         *BudgetLine
		one, many string
	}{{p.Credits, "credit", "credits"}, {p.Requests, "request", "requests"}} {
		if x.l == nil {
			continue
		}
		s := fmt.Sprintf("%s of %s spent this billing month", thousands(x.l.Spent), plural(x.l.Limit, x.one, x.many))
		if x.l.PlanMax > 0 {
			s += fmt.Sprintf("; this plan up to %s -> at most %s", plural(x.l.PlanMax, x.one, x.many), plural(x.l.AfterMax, x.one, x.many))
		}
		parts = append(parts, s)
	}
	return "Budget: " + strings.Join(parts, "; ") + "." + sinceText(p)
}

// sinceText says, when the ledger began counting after the billing month
// started, from when it counts: " Counted since 2026-11-28 09:12 UTC, the
// first call of this API account the ledger recorded: what it spent
// before, or with other tools, is not in it."
func sinceText(p *Budget) string {
	since, err := time.Parse(time.RFC3339, p.CountedSince)
	if p.WholeMonth || err != nil {
		return ""
	}
	return " Counted since " + since.UTC().Format("2006-01-02 15:04 MST") +
		", the first call of this API account the ledger recorded: what it spent before, or with other tools, is not in it."
}

// passedText names the limits the plan may pass, for its diagnostic: the
// plan's Budget line (drawn once, with the plan's totals) has the
// figures. "It may pass the limit of 2,000 credits this billing month."
func passedText(p *Budget) string {
	var parts []string
	for _, x := range []struct {
		l         *BudgetLine
		one, many string
	}{{p.Credits, "credit", "credits"}, {p.Requests, "request", "requests"}} {
		if x.l != nil && x.l.PlanMax > 0 && x.l.AfterMax > x.l.Limit {
			parts = append(parts, "the limit of "+plural(x.l.Limit, x.one, x.many))
		}
	}
	return "It may pass " + strings.Join(parts, " and ") + " this billing month (the Budget line of the plan has the figures)."
}

// BudgetText is budgetText for the views.
func BudgetText(p *Budget) string { return budgetText(p) }
