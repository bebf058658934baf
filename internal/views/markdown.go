package views

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/leadsync/leadsync/internal/plan"
)

// mdOpenLimit is how many changes the table shows open; a longer table goes
// into a <details> block so that a big plan does not bury the comment.
const mdOpenLimit = 25

// PlanMarkdown writes the plan as a pull-request comment (GitHub Flavored
// Markdown): one summary line (calls, credits, duration, quota after), a
// table of the changes (address, action, calls, credits, reason), the
// addresses that are up to date and long tables folded into <details>, and
// the diagnostics. With base (a plan --json of the base branch) it adds the
// difference in calls and credits, in total and per address.
func PlanMarkdown(w io.Writer, p *plan.Plan, base *plan.Plan) error {
	var b strings.Builder
	b.WriteString("### leadsync plan\n\n")
	b.WriteString(mdSummary(p) + "\n")
	if p.ForgetsMost != nil {
		b.WriteString("\n**" + p.ForgetsMost.Text() + "**\n")
	}
	var diff map[string]mdDelta
	if base != nil {
		var total mdDelta
		diff, total = planDelta(p, base)
		fmt.Fprintf(&b, "\n%s\n", total.sentence())
	}

	var changes, same []*plan.Change
	for _, c := range p.Changes {
		if c.Action == plan.None {
			same = append(same, c)
		} else {
			changes = append(changes, c)
		}
	}
	if len(changes) > 0 {
		table := mdChangeTable(changes, diff)
		if len(changes) > mdOpenLimit {
			fmt.Fprintf(&b, "\n<details><summary>%s</summary>\n\n%s\n</details>\n", Plural(len(changes), "change"), table)
		} else {
			b.WriteString("\n" + table)
		}
	}
	if base != nil {
		if gone := removedSinceBase(p, base); len(gone) > 0 {
			fmt.Fprintf(&b, "\nNo longer in the plan (planned on the base): %s.\n", mdCodeList(gone))
		}
	}
	if len(same) > 0 {
		var t strings.Builder
		if diff != nil {
			t.WriteString("| Address | Detail | Compared with the base |\n|---|---|---|\n")
		} else {
			t.WriteString("| Address | Detail |\n|---|---|\n")
		}
		for _, c := range same {
			fmt.Fprintf(&t, "| %s | %s |", mdCode(c.Address), mdCell(c.Detail))
			if diff != nil {
				fmt.Fprintf(&t, " %s |", mdCell(diff[c.Address].short()))
			}
			t.WriteString("\n")
		}
		fmt.Fprintf(&b, "\n<details><summary>Up to date: %s</summary>\n\n%s\n</details>\n", Plural(len(same), "address"), t.String())
	}
	if q := mdQuota(p); q != "" {
		b.WriteString("\n" + q + "\n")
	}
	if p.Budget != nil && p.HasChanges() {
		b.WriteString("\n" + mdInline(plan.BudgetText(p.Budget)) + "\n")
	}
	if ls := savingsLines(p); len(ls) > 0 {
		b.WriteString("\n")
		for _, l := range ls {
			if d, ok := strings.CutPrefix(l, "  "); ok {
				b.WriteString("  - " + mdInline(d) + "\n")
				continue
			}
			b.WriteString("- " + mdInline(l) + "\n")
		}
	}
	if len(p.Targets) > 0 {
		fmt.Fprintf(&b, "\nTargets: %s (the plan covers only these and their sources).\n", mdCodeList(p.Targets))
	}
	if p.Suppressed > 0 {
		fmt.Fprintf(&b, "\nSuppressed: %s erased with `leadsync forget` (results naming them are dropped).\n", Plural(p.Suppressed, "person"))
	}
	mdDiagnostics(&b, p.Diagnostics)
	_, err := io.WriteString(w, b.String())
	return err
}

// mdSummary is the one summary line: calls, credits, duration, quota after.
func mdSummary(p *plan.Plan) string {
	if !p.HasChanges() {
		return "**No changes:** everything is up to date."
	}
	t := p.Totals
	parts := []string{
		"**" + mdBound(t.Calls, t.CallsMax, "call", "calls") + "**",
		"**" + mdBound(t.Credits, t.CreditsMax, "credit", "credits") + "**",
	}
	if t.CallsMax > 0 {
		parts = append(parts, "up to "+formatSeconds(t.DurationSecondsMax)+" at "+formatRate(t.RateLimit))
	}
	if q := p.Quota; q.Checked && q.After != nil {
		parts = append(parts, fmt.Sprintf("quota after: %s requests left this month", thousands(*q.After)))
	} else {
		parts = append(parts, "quota not checked")
	}
	other := otherChanges(t)
	s := "Plan: " + strings.Join(parts, ", ")
	if len(other) > 0 {
		s += "; " + strings.Join(other, ", ")
	}
	return s + "."
}

// mdQuota says why the quota was not checked, the credit cap and the last
// known credit balance.
func mdQuota(p *plan.Plan) string {
	if !p.HasChanges() {
		return ""
	}
	q := p.Quota
	s := ""
	if !(q.Checked && q.After != nil) && q.Note != "" {
		s = "Quota: " + mdInline(q.Note) + ". "
	}
	s += "Credits: " + creditsOfCap(p)
	if b := creditBalanceText(p); b != "" {
		s += "; " + mdInline(b)
	}
	return s + "."
}

// mdBound writes a certain count and its bound: "8 credits", "up to 8
// credits", "2 to 10 calls".
func mdBound(certain, max int, one, many string) string {
	switch {
	case certain == max:
		return count(max, one, many)
	case certain == 0:
		return "up to " + count(max, one, many)
	}
	return fmt.Sprintf("%s to %s", thousands(certain), count(max, one, many))
}

// mdNumber is a calls or credits cell: "1", "0", "up to 8", "2 to 10".
func mdNumber(certain, max int) string {
	switch {
	case certain == max:
		return thousands(max)
	case certain == 0:
		return "up to " + thousands(max)
	}
	return thousands(certain) + " to " + thousands(max)
}

// mdChangeTable is the table of changes; with diff, a column compares each
// address with the base.
func mdChangeTable(changes []*plan.Change, diff map[string]mdDelta) string {
	var b strings.Builder
	b.WriteString("| | Address | Action | Calls | Credits | Reason |")
	if diff != nil {
		b.WriteString(" Compared with the base |")
	}
	b.WriteString("\n|---|---|---|--:|--:|---|")
	if diff != nil {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, c := range changes {
		reason := mdCode(string(c.Reason))
		if c.Detail != "" {
			reason += " " + mdCell(c.Detail)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |", mdSymbol(c), mdCode(c.Address), c.Action, mdNumber(c.Calls, c.CallsMax), mdNumber(c.Credits, c.CreditsMax), reason)
		if diff != nil {
			fmt.Fprintf(&b, " %s |", mdCell(diff[c.Address].short()))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// mdSymbol marks a change like the terminal plan does, as text.
func mdSymbol(c *plan.Change) string {
	switch symbol(c) {
	case "+":
		return "➕"
	case "-":
		return "➖"
	case "~":
		return "🔄"
	}
	return ""
}

// mdDelta is the difference of one address (or the whole plan) between
// this plan and the base, in the bounds (what apply may spend).
type mdDelta struct {
	calls, credits int
	added          bool // not in the base plan
}

func signed(n int, one, many string) string {
	if n > 0 {
		return "+" + count(n, one, many)
	}
	if n < 0 {
		return "-" + count(-n, one, many)
	}
	return "±0 " + many
}

// sentence is the total difference, as the comment's second line.
func (d mdDelta) sentence() string {
	if d.calls == 0 && d.credits == 0 {
		return "No difference in calls or credits compared with the base."
	}
	return fmt.Sprintf("**%s, %s** compared with the base.", signed(d.calls, "call", "calls"), signed(d.credits, "credit", "credits"))
}

// short is the per-address cell.
func (d mdDelta) short() string {
	s := signed(d.calls, "call", "calls") + ", " + signed(d.credits, "credit", "credits")
	if d.calls == 0 && d.credits == 0 {
		s = "no difference"
	}
	if d.added {
		s += " (not in the base plan)"
	}
	return s
}

// planDelta compares the bounds of p with those of base, per address and
// in total.
func planDelta(p, base *plan.Plan) (map[string]mdDelta, mdDelta) {
	old := map[string]*plan.Change{}
	for _, c := range base.Changes {
		old[c.Address] = c
	}
	out := map[string]mdDelta{}
	for _, c := range p.Changes {
		d := mdDelta{calls: c.CallsMax, credits: c.CreditsMax}
		if o := old[c.Address]; o != nil {
			d.calls -= o.CallsMax
			d.credits -= o.CreditsMax
		} else {
			d.added = true
		}
		out[c.Address] = d
	}
	total := mdDelta{
		calls:   p.Totals.CallsMax - base.Totals.CallsMax,
		credits: p.Totals.CreditsMax - base.Totals.CreditsMax,
	}
	return out, total
}

// removedSinceBase lists the addresses the base plan had changes for and
// this plan does not name at all.
func removedSinceBase(p, base *plan.Plan) []string {
	now := map[string]bool{}
	for _, c := range p.Changes {
		now[c.Address] = true
	}
	var out []string
	for _, c := range base.Changes {
		if !now[c.Address] && c.Action != plan.None {
			out = append(out, c.Address)
		}
	}
	sort.Strings(out)
	return out
}

// mdCode writes s as a code span that no content can break: a fence longer
// than any run of backticks in s, padded when s starts or ends with one.
func mdCode(s string) string {
	s = oneLine(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	// In a table a pipe ends the cell even inside a code span.
	return fence + strings.ReplaceAll(s, "|", `\|`) + fence
}

func mdCodeList(ss []string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = mdCode(s)
	}
	return strings.Join(out, ", ")
}

// mdCell writes text for a table cell: one line, pipes escaped, no markup.
func mdCell(s string) string { return mdInline(s) }

// mdInline writes text that Markdown shows as it is: one line, HTML and
// Markdown punctuation escaped (values come from configuration files and
// the service, and must neither format nor inject markup).
func mdInline(s string) string {
	s = oneLine(s)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
		case '\\', '`', '*', '_', '[', ']', '#', '~', '|', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// oneLine joins the lines of s with spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.NewReplacer("\r", " ", "\n", " ").Replace(s)), " ")
}

// mdDiagnostics writes the diagnostics section: each with its severity,
// summary, address or place in the configuration, and detail.
func mdDiagnostics(b *strings.Builder, diags []plan.Diagnostic) {
	if len(diags) == 0 {
		return
	}
	b.WriteString("\n#### Diagnostics\n\n")
	for _, d := range diags {
		sev := "Warning"
		if d.Severity == "error" {
			sev = "Error"
		}
		line := fmt.Sprintf("- **%s:** %s", sev, mdInline(d.Summary))
		switch {
		case d.Address != "":
			line += " (" + mdCode(d.Address) + ")"
		case d.Range != nil && d.Range.Filename != "":
			line += " (" + mdCode(fmt.Sprintf("%s:%d", d.Range.Filename, d.Range.Start.Line)) + ")"
		}
		b.WriteString(line + "\n")
		if d.Detail != "" {
			// Lines of the detail stay lines (hard breaks).
			var lines []string
			for _, l := range strings.Split(d.Detail, "\n") {
				if l = mdInline(l); l != "" {
					lines = append(lines, l)
				}
			}
			detail := strings.Join(lines, "\\\n  ")
			if len(d.Detail) > 200 || len(lines) > 3 {
				fmt.Fprintf(b, "  <details><summary>Details</summary>\n\n  %s\n\n  </details>\n", detail)
			} else {
				fmt.Fprintf(b, "  %s\n", detail)
			}
		}
	}
}

// FailureMarkdown writes the pull-request comment of a command that failed
// before it could show a plan (command is "plan" or "show"): what went
// wrong (msg) and the diagnostics, so that CI posts what happened rather
// than an empty comment.
func FailureMarkdown(w io.Writer, command, msg string, diags []plan.Diagnostic) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### leadsync %s\n\n", command)
	msg = mdInline(msg)
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	fmt.Fprintf(&b, "**Failed:** %s\n\n", msg)
	if command == "plan" {
		b.WriteString("No plan was made. ")
	}
	b.WriteString("Fix the problem and run the job again; its log has the same messages.\n")
	mdDiagnostics(&b, diags)
	_, err := io.WriteString(w, b.String())
	return err
}
