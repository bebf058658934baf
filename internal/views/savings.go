package views

import (
	"fmt"
	"strings"

	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// savingsLines are what the plan says it does not spend, and why: the
// total, then the exclude blocks (with when each acts), the imports and
// the enrichments reused from other workspaces. Indented lines detail the
// line before them. Nothing when the plan saves nothing and has no
// exclude block.
func savingsLines(p *plan.Plan) []string {
	sv := p.Savings
	var out []string
	if sv.CreditsMax > 0 {
		var why []string
		if n := sv.Excluded.CreditsMax; n > 0 {
			why = append(why, "excluded "+thousands(n))
		}
		if n := sv.Imported.Credits; n > 0 {
			why = append(why, "imported "+thousands(n))
		}
		if n := sv.Reused.Credits; n > 0 {
			why = append(why, "reused "+thousands(n))
		}
		out = append(out, fmt.Sprintf("Not spent: %s%s (%s).", upTo(sv.Excluded.CreditsMax > 0), count(sv.CreditsMax, "credit", "credits"), strings.Join(why, ", ")))
	}
	if l := excludedLine(p); l != "" {
		out = append(out, l)
		for _, d := range excludeBlockLines(p) {
			out = append(out, "  "+d)
		}
	}
	if n := sv.Imported.People; n > 0 {
		out = append(out, fmt.Sprintf("Imported: %s an e-mail from an import: %s not spent.",
			map[bool]string{true: "1 person has", false: thousands(n) + " people have"}[n == 1], count(sv.Imported.Credits, "credit", "credits")))
	}
	if len(sv.Reused.Workspaces) > 0 {
		var from []string
		for _, w := range sv.Reused.Workspaces {
			from = append(from, fmt.Sprintf("%s from workspace %s", count(w.People, "enrichment", "enrichments"), w.Workspace))
		}
		out = append(out, fmt.Sprintf("Reused: %s (0 credits): %s not spent.", strings.Join(from, ", "), count(sv.Reused.Credits, "credit", "credits")))
	}
	return out
}

// upTo is "up to " before a figure that is a bound: credits not spent on
// excluded people (one might have been beyond a limit anyway); "" before
// an exact one (e-mails imported, enrichments reused: each is a person
// who needed one and has it at no credit).
func upTo(bound bool) string {
	if bound {
		return "up to "
	}
	return ""
}

// excludedLine is the plan's line about its exclude blocks, as the issue
// words it: "Excluded: 412 of 1,930 candidates (customers 380, dnc 32): up
// to 412 credits not spent." "" without exclude blocks.
func excludedLine(p *plan.Plan) string {
	ex := p.Savings.Excluded
	if len(ex.Blocks) == 0 {
		return ""
	}
	var per []string
	for _, b := range ex.Blocks {
		per = append(per, fmt.Sprintf("%s %s", strings.TrimPrefix(b.Address, "exclude."), thousands(b.People)))
	}
	s := fmt.Sprintf("Excluded: %s of %s (%s)", thousands(ex.People), count(ex.Candidates, "candidate", "candidates"), strings.Join(per, ", "))
	if ex.CreditsMax > 0 {
		s += fmt.Sprintf(": up to %s not spent", count(ex.CreditsMax, "credit", "credits"))
	}
	return s + "."
}

// excludeBlockLines say, for each exclude block, what it matches by and
// when it can act: before anything is spent, or once a value only an
// import or an enrichment tells is known.
func excludeBlockLines(p *plan.Plan) []string {
	var out []string
	for _, b := range p.Savings.Excluded.Blocks {
		rows := count(b.Rows, "row", "rows")
		switch len(b.Sheets) {
		case 0:
		case 1:
			rows = fmt.Sprintf("sheet %q, %s", b.Sheets[0], rows)
		default:
			rows = fmt.Sprintf("sheets %s, %s", textfmt.QuoteList(b.Sheets, ", "), rows)
		}
		out = append(out, fmt.Sprintf("%s: by %s of %s (%s), %s", b.Address, b.By, b.File, rows, timingText(b)))
	}
	return out
}

// timingText says when an exclude block acts.
func timingText(b plan.ExcludeBlock) string {
	if b.Timing == plan.TimingBeforeSpending {
		return "acts before any credit is spent"
	}
	what := "e-mail"
	if b.By == "domain" {
		what = "domain (their own, their e-mail's, or a colleague's at the same company)"
	}
	return fmt.Sprintf("acts once the %s is known from an import or an earlier enrichment; someone only their own enrichment tells is enriched, then left out of the exports", what)
}

// notSpentLine says what a run did not pay for, and why: "Not spent: up to
// 449 credits (excluded 412, imported 4, reused 33)." "" when nothing.
// "Up to" only with people excluded (a bound); imported and reused alone
// are exact: "Not spent: 5 credits (reused 5)."
func notSpentLine(n engine.NotSpent) string {
	if n.Credits() == 0 {
		return ""
	}
	var why []string
	for _, x := range []struct {
		name string
		n    int
	}{{"excluded", n.Excluded}, {"imported", n.Imported}, {"reused", n.Reused}} {
		if x.n > 0 {
			why = append(why, fmt.Sprintf("%s %s", x.name, textfmt.Thousands(x.n*n.CreditsPerEnrich)))
		}
	}
	return fmt.Sprintf("Not spent: %s%s (%s).", upTo(n.Excluded > 0), Plural(n.Credits(), "credit"), strings.Join(why, ", "))
}

// notSpentJSON is the summary's credits not spent, by reason.
func notSpentJSON(n engine.NotSpent) map[string]int {
	c := n.CreditsPerEnrich
	return map[string]int{"credits_max": n.Credits(), "excluded": n.Excluded * c, "imported": n.Imported * c, "reused": n.Reused * c}
}
