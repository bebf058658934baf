package views

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// ANSI colours of the human form, used only when asked for.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
)

// symbol is the one-character mark of a change in the human form: + adds
// (a first run, read, enrichment or file), ~ updates, - forgets, = nothing.
func symbol(c *plan.Change) string {
	switch c.Action {
	case plan.None:
		return "="
	case plan.Forget:
		return "-"
	case plan.Run, plan.Enrich:
		return "+"
	case plan.Import:
		if c.Reason == plan.ReasonNew {
			return "+"
		}
	case plan.Read, plan.Write:
		if c.Reason == plan.ReasonNew || c.Reason == plan.ReasonFileMissing {
			return "+"
		}
	}
	return "~"
}

func symbolColor(sym string) string {
	switch sym {
	case "+":
		return ansiGreen
	case "~":
		return ansiYellow
	case "-":
		return ansiRed
	}
	return ""
}

// callsText is the calls column of a search or profile change; enrich and
// forget changes say their count in the detail.
func callsText(c *plan.Change) string {
	if c.Action == plan.None || c.Kind == kind.Enrich || c.Kind == kind.Export || c.Kind == kind.Import || c.Action == plan.Forget || c.Action == plan.Update || c.Action == plan.Moved {
		return ""
	}
	if c.Calls != c.CallsMax {
		return "up to " + count(c.CallsMax, "call", "calls")
	}
	return count(c.CallsMax, "call", "calls")
}

// PlanText writes the plan in the human form of design.md: one aligned
// line per address, then the totals and the quota. Colour escapes only when
// color is true.
func PlanText(w io.Writer, p *plan.Plan, color bool) error {
	paint := func(code, s string) string {
		if !color || code == "" {
			return s
		}
		return code + s + ansiReset
	}
	addrW, actW, callsW := 0, 0, 0
	for _, c := range p.Changes {
		// Display widths: addresses hold for_each keys like "München".
		addrW = max(addrW, textfmt.Width(c.Address))
		actW = max(actW, textfmt.Width(actionText(c)))
		callsW = max(callsW, textfmt.Width(callsText(c)))
	}
	var b strings.Builder
	for _, c := range p.Changes {
		sym := symbol(c)
		act := actionText(c)
		fmt.Fprintf(&b, "  %s %s  %s", paint(symbolColor(sym), sym), pad(c.Address, addrW), paint(symbolColor(sym), pad(act, actW)))
		rest := ""
		if ct := callsText(c); ct != "" {
			rest = pad(ct, callsW) + "  " + c.Detail
		} else {
			rest = c.Detail
		}
		if rest = strings.TrimRight(rest, " "); rest != "" {
			b.WriteString("  " + rest)
		}
		b.WriteString("\n")
	}
	if len(p.Changes) > 0 {
		b.WriteString("\n")
	}
	b.WriteString(paint(ansiBold, summaryLine(p)) + "\n")
	if p.ForgetsMost != nil {
		b.WriteString(paint(ansiBold, p.ForgetsMost.Text()) + "\n")
	}
	if p.HasChanges() {
		b.WriteString(quotaLine(p) + "\n")
	}
	if p.Budget != nil && p.HasChanges() {
		b.WriteString(plan.BudgetText(p.Budget) + "\n")
	}
	for _, l := range savingsLines(p) {
		b.WriteString(l + "\n")
	}
	if len(p.Targets) > 0 {
		fmt.Fprintf(&b, "Targets: %s (the plan covers only these and their sources).\n", strings.Join(p.Targets, ", "))
	}
	if p.Suppressed > 0 {
		fmt.Fprintf(&b, "Suppressed: %s erased with leadsync forget (results naming them are dropped).\n", count(p.Suppressed, "person", "people"))
	}
	for _, d := range p.Diagnostics {
		if d.Severity == "warning" {
			fmt.Fprintf(&b, "\nWarning: %s\n", d.Summary)
			if d.Detail != "" {
				for _, l := range strings.Split(d.Detail, "\n") {
					if l != "" {
						l = "  " + l // an empty line stays empty
					}
					b.WriteString(l + "\n")
				}
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// actionText is the action column: the action, or "up to date".
func actionText(c *plan.Change) string {
	if c.Action == plan.None {
		return "up to date"
	}
	return string(c.Action)
}

// pad pads s with spaces to w character cells (display width, so that
// columns line up after non-ASCII text).
func pad(s string, w int) string { return textfmt.PadRight(s, w) }

// otherChanges lists the changes of the plan that make no call (moves,
// imports, reuses, updates, forgets, export writes), as the summary lines
// of the text and the Markdown forms say them.
func otherChanges(t plan.Totals) []string {
	var other []string
	for _, c := range []struct {
		n         int
		one, many string
	}{
		{t.Moves, "move", "moves"},
		{t.Imports, "import", "imports"},
		{t.Reuses, "enrichment reused", "enrichments reused"},
		{t.Updates, "update", "updates"},
		{t.Forgets, "forget", "forgets"},
		{t.Writes, "export write", "export writes"},
	} {
		if c.n > 0 {
			other = append(other, count(c.n, c.one, c.many))
		}
	}
	return other
}

// summaryLine is the "Plan: ..." line.
func summaryLine(p *plan.Plan) string {
	t := p.Totals
	if !p.HasChanges() {
		return "No changes: everything is up to date."
	}
	other := otherChanges(t)
	if t.CallsMax == 0 {
		return fmt.Sprintf("Plan: no calls, no credits; %s.", strings.Join(other, ", "))
	}
	var kinds []string
	switch {
	case t.SearchesMax > t.Searches:
		// Split searches: their sub-searches are bounded, not certain.
		kinds = append(kinds, "up to "+count(t.SearchesMax, "search", "searches"))
	case t.Searches > 0:
		kinds = append(kinds, count(t.Searches, "search", "searches"))
	}
	if t.Profiles > 0 {
		kinds = append(kinds, count(t.Profiles, "profile read", "profile reads"))
	}
	if t.Tracks > 0 {
		kinds = append(kinds, count(t.Tracks, "track read", "track reads"))
	}
	switch {
	case t.EnrichmentsMax == 0:
	case t.Enrichments == t.EnrichmentsMax:
		kinds = append(kinds, count(t.Enrichments, "enrichment", "enrichments"))
	default:
		kinds = append(kinds, "up to "+count(t.EnrichmentsMax, "enrichment", "enrichments"))
	}
	calls := count(t.CallsMax, "call", "calls")
	credits := count(t.CreditsMax, "credit", "credits")
	if t.Calls != t.CallsMax {
		calls += " at most"
	}
	if t.Credits != t.CreditsMax {
		credits += " at most"
	}
	s := fmt.Sprintf("Plan: %s (%s), %s, up to %s at %s.", calls, strings.Join(kinds, ", "), credits,
		formatSeconds(t.DurationSecondsMax), formatRate(t.RateLimit))
	if len(other) > 0 {
		s = strings.TrimSuffix(s, ".") + "; " + strings.Join(other, ", ") + "."
	}
	return s
}

// quotaLine is the "Quota: ..." line: the requests left this month and
// after the plan (counting only the calls that use the quota), the credits
// against max_credits, and the last known credit balance.
func quotaLine(p *plan.Plan) string {
	q := p.Quota
	t := p.Totals
	var s string
	if q.Checked && q.RemainingRequests != nil && q.After != nil {
		s = fmt.Sprintf("Quota: %s requests left this month -> %s after (min_remaining_requests %s",
			thousands(*q.RemainingRequests), thousands(*q.After), thousands(q.MinRemainingRequests))
		// Second-generation calls use no quota. A plan saved by an earlier
		// version has no quota_calls_max (0) and counted every call in
		// after: no note then.
		if n := t.CallsMax - t.QuotaCallsMax; n > 0 && *q.After == *q.RemainingRequests-t.QuotaCallsMax {
			gen2 := count(n, "second-generation call", "second-generation calls")
			if t.Calls-t.QuotaCalls != n {
				gen2 = "up to " + gen2
			}
			s += "; " + gen2 + " use none"
		}
		s += ")."
	} else {
		note := q.Note
		if note == "" {
			note = "not checked"
		}
		s = fmt.Sprintf("Quota: %s.", note)
	}
	s += " Credits: " + creditsOfCap(p)
	if b := creditBalanceText(p); b != "" {
		s += "; " + b
	}
	return s + "."
}

// creditBalanceText is what the plan says of the last known credit balance
// (reported by the last enrichment): "450 left as of 2 days ago -> 442
// after", with "at least" when the plan's credits are a bound, and "not
// enough" when they may exceed it (the plan's warning says more). "" when
// no balance is known.
func creditBalanceText(p *plan.Plan) string {
	c := p.Credits
	if c.Balance == nil {
		return ""
	}
	s := thousands(*c.Balance) + " left"
	if c.CheckedAt != nil {
		s += " as of " + plan.Ago(p.CreatedAt, *c.CheckedAt)
	}
	t := p.Totals
	switch {
	case t.CreditsMax == 0 || c.After == nil:
	case t.Credits > *c.Balance:
		s += " -> not enough for this plan (see the warning)"
	case *c.After < 0:
		s += " -> may not be enough for this plan (see the warning)"
	case t.Credits == t.CreditsMax:
		s += " -> " + thousands(*c.After) + " after"
	default:
		s += " -> at least " + thousands(*c.After) + " after"
	}
	return s
}

// formatSeconds writes a duration bound for people.
func formatSeconds(s int) string {
	switch {
	case s < 120:
		return fmt.Sprintf("%d s", s)
	case s < 2*3600:
		return fmt.Sprintf("%d min", (s+59)/60)
	}
	m := (s + 59) / 60
	return fmt.Sprintf("%d h %d min", m/60, m%60)
}

// formatRate writes a rate limit: "1 call/s", "0.5 calls/s".
func formatRate(r float64) string {
	unit := "calls/s"
	if r == 1 {
		unit = "call/s"
	}
	return strconv.FormatFloat(r, 'f', -1, 64) + " " + unit
}

// creditsOfCap writes the plan's credits against max_credits: "3 of
// max_credits 500", "up to 8 of max_credits 500", "max_credits 500".
func creditsOfCap(p *plan.Plan) string {
	t, q := p.Totals, p.Quota
	switch {
	case t.CreditsMax > 0 && t.Credits == t.CreditsMax:
		// Certain (every person to enrich is known): no "up to".
		return fmt.Sprintf("%s of max_credits %s", thousands(t.CreditsMax), thousands(q.MaxCredits))
	case t.CreditsMax > 0:
		return fmt.Sprintf("up to %s of max_credits %s", thousands(t.CreditsMax), thousands(q.MaxCredits))
	}
	return "max_credits " + thousands(q.MaxCredits)
}

// SavedPlanNote follows a saved plan that show drew: when it was made,
// and that apply runs exactly it and refuses it once the state or the
// configuration changed. A reviewer reading "show FILE" should know both.
func SavedPlanNote(w io.Writer, createdAt time.Time, path string) error {
	_, err := fmt.Fprintf(w, "\nSaved plan made %s. \"leadsync apply %s\" runs exactly this plan, and refuses it if the state or the configuration has changed since.\n",
		createdAt.UTC().Format("2006-01-02 15:04 UTC"), path)
	return err
}

// PlanSaved follows the plan that plan --out saved to path: how to run
// exactly it.
func PlanSaved(w io.Writer, path string) {
	fmt.Fprintf(w, "\nSaved the plan to %s. To run exactly this plan: leadsync apply %s\n", path, path)
}

// PlanCatalogNote follows the drawn plan when its filters were checked
// against a live field list (LiveCatalogNote); nothing otherwise.
func PlanCatalogNote(w io.Writer, cfg *config.Config) {
	if note := LiveCatalogNote(cfg); note != "" {
		fmt.Fprintln(w, note)
	}
}

// PlanOfflineHint follows a failed billing call of plan: how to plan
// without it.
func PlanOfflineHint(w io.Writer) {
	fmt.Fprintln(w, "\nTo plan without checking the quota: leadsync plan --offline")
}
