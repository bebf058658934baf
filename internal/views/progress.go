package views

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// textProgress prints one line per completed call and, on a terminal, keeps
// a status line at the bottom: calls done of total, credits, the calls in
// flight, the rate and the time left.
type textProgress struct {
	w     io.Writer
	now   func() time.Time
	live  bool
	color bool

	count       *Counter
	statusDrawn bool
	// hold, when set, receives the run's summary instead of the output:
	// the apply view prints it once it knows how the apply ended.
	hold func(*engine.Summary)
}

var _ engine.Progress = (*textProgress)(nil)

func (p *textProgress) Start(pl *plan.Plan, callsMax, creditsMax int) {
	p.count = NewCounter(p.now)
	p.count.Start(callsMax)
	if pl != nil {
		p.count.Limit = pl.Totals.RateLimit
	}
	fmt.Fprintf(p.w, "Applying: %s at most, %s at most.\n", Plural(callsMax, "call"), Plural(creditsMax, "credit"))
}

func (p *textProgress) CallStart(c engine.Call) {
	p.count.CallStart(c)
	if p.live {
		p.drawStatus()
	}
}

func (p *textProgress) CallDone(c engine.Call, r engine.CallResult) {
	p.count.CallEnd(c, r.Credits)
	var detail string
	switch c.Kind {
	case kind.Search:
		detail = Plural(r.Results, "result")
		switch {
		case r.SplitNext != "":
			detail += " (at the cap: split by " + r.SplitNext + ")"
		case r.Results > api.MaxResults:
			detail += fmt.Sprintf(" (more than the network's cap of %d: at most %d kept)", api.MaxResults, api.MaxResults)
		case r.Capped && c.SubSearch != "":
			detail += " (the network's cap of 300 after the last split_by dimension: incomplete)"
		case r.Capped:
			detail += " (the network's cap of 300: probably cut off; narrow the search)"
		}
	case kind.Profile:
		detail = "profile read"
	case kind.Track:
		switch {
		case r.Left:
			detail = "left the network (the service knows the page name no more)"
		case r.Private && len(r.Jobs) > 0:
			// A private answer that shows positions is read for them.
			detail = "profile private, new job: " + jobChangeText(r.Jobs[0])
		case r.Private:
			detail = "profile private"
		case len(r.Jobs) > 0:
			detail = "new job: " + jobChangeText(r.Jobs[0])
		default:
			detail = "no change"
		}
	case kind.Enrich:
		// The status in the sheets' words ("not found", not the
		// service's "empty"), as the summary and the sheets write it.
		detail = fmt.Sprintf("enriched (%s), %s", export.StatusText(r.Status), Plural(r.Credits, "credit"))
	}
	p.line(fmt.Sprintf("%s %s%s: %s in %s", p.mark("✓", "32"), c.Address, callSuffix(c), detail, durText(r.Duration)))
}

func (p *textProgress) CallError(c engine.Call, err error) {
	p.count.CallEnd(c, 0)
	p.line(fmt.Sprintf("%s %s%s: %s", p.mark("✗", "31"), c.Address, personSuffix(c), errorLine(err)))
}

func (p *textProgress) Stopping(reason string) {
	p.line(p.mark("!", "33") + " " + reason)
}

func (p *textProgress) Summary(s *engine.Summary) {
	p.clearStatus()
	if p.hold != nil {
		p.hold(s)
		return
	}
	writeSummary(p.w, s, endingOf(s, nil, nil))
}

func (p *textProgress) mark(sym, code string) string {
	if p.color {
		return "\x1b[" + code + "m" + sym + "\x1b[0m"
	}
	return sym
}

// line prints a line above the status line.
func (p *textProgress) line(s string) {
	p.clearStatus()
	fmt.Fprintln(p.w, s)
	if p.live {
		p.drawStatus()
	}
}

func (p *textProgress) clearStatus() {
	if p.statusDrawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.statusDrawn = false
	}
}

func (p *textProgress) drawStatus() {
	rate, left, ok := p.count.Rate()
	leftText := "?"
	if ok {
		leftText = roundDur(left).String()
	}
	var names []string
	for _, c := range p.count.InFlight() {
		names = append(names, c.Address+personSuffix(c))
	}
	flight := truncCells(strings.Join(names, ", "), 60)
	status := fmt.Sprintf("[%s/%s calls] %s", textfmt.Thousands(p.count.Done), textfmt.Thousands(p.count.CallsMax), Plural(p.count.Credits, "credit"))
	if rate > 0 {
		// Shown once two calls have started (see Counter.Rate).
		status += fmt.Sprintf("  %.2f calls/s  ~%s left", rate, leftText)
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s  %s", status, flight)
	p.statusDrawn = true
}

// waitText says what a call waits for: "waiting 4s: retry after server error".
func waitText(c engine.Call, d time.Duration, reason string) string {
	return fmt.Sprintf("%s%s: waiting %s: %s", c.Address, personSuffix(c), roundDur(d), reason)
}

var _ engine.WaitProgress = (*textProgress)(nil)

// Waiting prints the wait of a call: on a terminal above the status line,
// in a pipe as a line, so that a long wait is never silent.
func (p *textProgress) Waiting(c engine.Call, d time.Duration, reason string) {
	p.line(p.mark("…", "33") + " " + waitText(c, d, reason))
}

// errorLine is an error with its hint, on one line.
func errorLine(err error) string {
	msg := err.Error()
	if ae, ok := err.(*api.Error); ok {
		if h := ae.Hint(); h != "" {
			msg += " — " + h
		}
	}
	return msg
}

func personSuffix(c engine.Call) string {
	if (c.Kind == kind.Enrich || c.Kind == kind.Track) && c.Label != "" {
		return " " + serviceText(c.Label)
	}
	return ""
}

// callSuffix names the person of an enrich call, or the filters a
// sub-search of a split search adds.
func callSuffix(c engine.Call) string {
	if c.SubSearch != "" {
		return " " + c.SubSearch
	}
	return personSuffix(c)
}

// jobChangeText is "CTO at Nordlicht Software GmbH -> VP Engineering at
// Rheinbank": the job before and after.
func jobChangeText(j engine.JobChange) string {
	return serviceText(j.Before.String()) + " -> " + serviceText(j.After.String())
}

// writeDrift prints what the run saw change: the track reads, each job
// change with the call that saw it, the people who left the network or
// turned private. Those counts are of changes, the people of the JSON
// summary's left_network and turned_private: a read that finds a profile
// private (or gone) that was so already changes nothing, so the line says
// "turned private", never "0 private" after a read showed a private one.
func writeDrift(w io.Writer, s *engine.Summary) {
	d := s.Drift
	if s.Tracked > 0 {
		fmt.Fprintf(w, "Tracked %s: %s, %s left the network, %s turned private.\n", Plural(s.Tracked, "person"),
			Plural(jobsBy(d.Jobs, kind.Track), "job change"), textfmt.Thousands(len(d.Left)), textfmt.Thousands(len(d.Private)))
	}
	if len(d.Jobs) > 0 {
		fmt.Fprintf(w, "Job changes (%d):\n", len(d.Jobs))
		for _, j := range d.Jobs {
			fmt.Fprintf(w, "  %s: %s (%s)\n", serviceText(j.Name), jobChangeText(j), j.By)
		}
	}
	for _, g := range []struct {
		title  string
		people []engine.PersonSeen
	}{{"Left the network", d.Left}, {"Turned private", d.Private}} {
		if len(g.people) == 0 {
			continue
		}
		fmt.Fprintf(w, "%s (%d):\n", g.title, len(g.people))
		for _, p := range g.people {
			fmt.Fprintf(w, "  %s (%s)\n", serviceText(p.Name), p.By)
		}
	}
}

// jobsBy counts the job changes seen by calls of kind k.
func jobsBy(jobs []engine.JobChange, k kind.Kind) int {
	n := 0
	for _, j := range jobs {
		if j.Call == k {
			n++
		}
	}
	return n
}

// splitLines describe a split search's completeness after a run.
func splitLines(ss *state.SplitSummary) []string {
	lines := []string{fmt.Sprintf("    %s run, %s found: %s", Plural(ss.SubSearches, "sub-search"), Plural(ss.People, "person"), ss.Verdict())}
	for _, leaf := range ss.Saturated {
		lines = append(lines, "      still at the cap: "+leaf)
	}
	return lines
}

// durText is a duration for people: "<1ms", "240ms", "2.3s", "14s".
func durText(d time.Duration) string {
	if d < time.Millisecond {
		return "<1ms"
	}
	return roundDur(d).String()
}

func roundDur(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	default:
		return d.Round(time.Millisecond)
	}
}
