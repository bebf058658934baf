package views

import (
	"fmt"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
	"io"
	"strings"
)

// An answer that was paid for and could be neither recorded in the state
// nor kept in a rescue file (engine.AnswerProgress) is printed on standard
// error at once, in both forms of apply: it is the only copy left.

var (
	_ engine.AnswerProgress = (*textProgress)(nil)
	_ engine.AnswerProgress = (*jsonProgress)(nil)
)

// Unrecorded prints the answer above the status line.
func (p *textProgress) Unrecorded(c engine.Call, ev *state.Event, err error) {
	p.clearStatus()
	writeAnswer(p.w, c, ev, err)
	if p.live {
		p.drawStatus()
	}
}

// Unrecorded prints the answer on standard error and emits it as an
// "answer_not_recorded" line.
func (p *jsonProgress) Unrecorded(c engine.Call, ev *state.Event, err error) {
	if p.errOut != nil {
		writeAnswer(p.errOut, c, ev, err)
	}
	p.emit(map[string]any{"message_type": "answer_not_recorded", "call": callJSON(c), "error": err.Error(), "answer": answerJSON(ev)})
}

// writeAnswer says what was paid for and not kept: who, and the answer.
func writeAnswer(w io.Writer, c engine.Call, ev *state.Event, err error) {
	fmt.Fprintf(w, "Paid for, but neither recorded in the state nor kept in a rescue file (%v). Keep this answer; the next apply makes the call again:\n", err)
	for _, l := range answerLines(c, ev) {
		fmt.Fprintln(w, "  "+l)
	}
}

// answerLines are the lines of an answer: an enrichment's person and
// e-mail; the people a search or a profile read brought.
func answerLines(c engine.Call, ev *state.Event) []string {
	switch {
	case ev == nil:
		return []string{c.Address + callSuffix(c) + ": (no answer)"}
	case ev.Enrich != nil:
		r := ev.Enrich.Result
		return []string{fmt.Sprintf("%s %s (page name %s): e-mail %s, status %s, domain %s", c.Address, orNone(r.FullName),
			orNone(r.PageName), orNone(r.Email), orNone(r.ValidationStatus), orNone(r.CompanyDomain))}
	case ev.Search != nil:
		return leadLines(c.Address, ev.Search.Leads)
	case ev.Split != nil:
		return leadLines(c.Address+callSuffix(c), ev.Split.Leads)
	case ev.Profile != nil:
		return []string{fmt.Sprintf("%s: %s (page name %s)", c.Address, orNone(ev.Profile.Profile.FullName), orNone(ev.Profile.PageName))}
	}
	return []string{c.Address + ": " + string(ev.Kind)}
}

// leadLines are the people of a search's answer, one a line.
func leadLines(who string, leads []person.Lead) []string {
	lines := []string{fmt.Sprintf("%s: %s", who, textfmt.Plural(len(leads), "result"))}
	for _, l := range leads {
		lines = append(lines, fmt.Sprintf("  %s (page name %s)", orNone(l.FullName), orNone(l.PageName)))
	}
	return lines
}

// orNone is s cut to a line, "-" when empty.
func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return serviceText(s)
}

// answerJSON is the answer of an answer_not_recorded line: the event as
// it would have been recorded.
func answerJSON(ev *state.Event) any {
	if ev == nil {
		return nil
	}
	return ev
}
