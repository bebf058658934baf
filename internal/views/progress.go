package views

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/address"
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
		status := r.Status
		if status == "" {
			status = "no status"
		}
		detail = fmt.Sprintf("enriched (%s), %s", status, Plural(r.Credits, "credit"))
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

// writeSummary prints the end-of-run summary: what succeeded, what failed
// and why, and the sync summary per search; then how the apply ended (e).
func writeSummary(w io.Writer, s *engine.Summary, e ending) {
	fmt.Fprintln(w)
	writeNoCall(w, s)
	writeSearches(w, s.Searches)
	for _, u := range s.SplitsUnfinished {
		fmt.Fprintf(w, "  %s: split stopped after %s (%s done in all, %s known to be left); apply again resumes it without repeating one.\n",
			u.Address, Plural(u.Ran, "sub-search"), Plural(u.Done, "sub-search"), Plural(u.Pending, "sub-search"))
	}
	writeDrift(w, s)
	writeEnriched(w, s)
	if l := notSpentLine(s.NotSpent); l != "" {
		fmt.Fprintln(w, l)
	}
	if s.BudgetPassed != "" {
		fmt.Fprintf(w, "Budget: %s.\n", s.BudgetPassed)
	}
	writeFailed(w, s)
	writeStopped(w, s, e)
	if len(e.notWritten) > 0 {
		fmt.Fprintf(w, "Not written: %s.\n", strings.Join(e.notWritten, ", "))
	}
	unknown := ""
	if s.CreditsUnknown > 0 {
		// Never added to the credits charged: the service may or may not
		// have charged them, and the next plan says so again.
		unknown = fmt.Sprintf(", %s more may have been charged (enrichments whose outcome is unknown)", textfmt.Thousands(s.CreditsUnknown))
	}
	fmt.Fprintf(w, "%s: %s made (at most %s planned), %s charged (at most %s planned)%s, %s succeeded, %s failed, in %s.\n",
		e.word, Plural(s.Calls, "call"), textfmt.Thousands(s.CallsPlannedMax), Plural(s.Credits, "credit"), textfmt.Thousands(s.CreditsPlannedMax), unknown,
		textfmt.Thousands(s.Succeeded), textfmt.Thousands(s.CallsFailed()), roundDur(s.Duration))
}

// writeNoCall prints what the run did without a call: moves, forgotten
// addresses, people removed by retention, updates, reuses, claims,
// imports.
func writeNoCall(w io.Writer, s *engine.Summary) {
	if len(s.Moved) > 0 {
		var ms []string
		for _, m := range s.Moved {
			ms = append(ms, m.From+" -> "+m.To)
		}
		fmt.Fprintf(w, "Moved %s without a call: %s.\n", Plural(len(s.Moved), "address"), strings.Join(ms, ", "))
	}
	if len(s.Forgotten) > 0 {
		fmt.Fprintf(w, "Forgot %s: %s.\n", Plural(len(s.Forgotten), "address"), strings.Join(s.Forgotten, ", "))
	}
	if s.Expired > 0 {
		fmt.Fprintf(w, "Removed %s no search has seen for the retention period.\n", Plural(s.Expired, "person"))
	}
	if len(s.Updated) > 0 {
		fmt.Fprintf(w, "Updated %s without a call: %s.\n", Plural(len(s.Updated), "address"), strings.Join(s.Updated, ", "))
	}
	if len(s.Reused) > 0 {
		ws := make([]string, 0, len(s.Reused))
		for w := range s.Reused {
			ws = append(ws, w)
		}
		sort.Strings(ws)
		var from []string
		for _, w := range ws {
			from = append(from, fmt.Sprintf("%s from workspace %s", Plural(s.Reused[w], "enrichment"), w))
		}
		fmt.Fprintf(w, "Reused %s: no call, no credit.\n", strings.Join(from, ", "))
	}
	for _, line := range claimedLines(s.ClaimedElsewhere) {
		fmt.Fprintln(w, line)
	}
	for _, im := range s.Imported {
		line := fmt.Sprintf("Imported %s: %s from %s, %s with an e-mail (enriched at no credit)", im.Address,
			Plural(im.People, "person"), Plural(im.Rows, "row"), textfmt.Thousands(im.Saved))
		if im.Excluded > 0 {
			line += fmt.Sprintf(", %s excluded", textfmt.Thousands(im.Excluded))
		}
		line += ", no call"
		if im.Suppressed > 0 {
			line += fmt.Sprintf("; %s suppressed (erased with leadsync forget, dropped)", textfmt.Thousands(im.Suppressed))
		}
		fmt.Fprintln(w, line+".")
	}
}

// writeSearches prints the sync summary of each search that ran.
func writeSearches(w io.Writer, searches []engine.SearchOutcome) {
	if len(searches) > 0 {
		fmt.Fprintln(w, "Searches:")
		for _, o := range searches {
			line := fmt.Sprintf("  %s: %s", o.Address, Plural(o.Kept, "lead"))
			if o.Kept != o.Results {
				line += fmt.Sprintf(" (of %s returned)", textfmt.Thousands(o.Results))
			}
			if o.First {
				line += ", first run"
			} else {
				line += fmt.Sprintf(", %s new, %s gone since the last run", textfmt.Thousands(o.Added), textfmt.Thousands(o.Removed))
			}
			switch {
			case o.Split == nil && o.Results > api.MaxResults:
				line += "; " + export.OverCapNote
			case o.Capped && o.Split == nil:
				line += "; hit the network's cap of 300: probably cut off"
			}
			if o.Changed > 0 {
				line += fmt.Sprintf("; %s changed title, company or location since last seen", Plural(o.Changed, "person"))
			}
			if o.Suppressed > 0 {
				line += fmt.Sprintf("; %s suppressed (erased with leadsync forget, dropped)", textfmt.Thousands(o.Suppressed))
			}
			if o.Results == 0 {
				line += "; " + export.ZeroResultsNote
			}
			fmt.Fprintln(w, line)
			if o.Split != nil {
				for _, l := range splitLines(o.Split) {
					fmt.Fprintln(w, l)
				}
			}
		}
	}
}

// writeEnriched prints the people enriched, by validation status.
func writeEnriched(w io.Writer, s *engine.Summary) {
	if s.Enriched > 0 {
		keys := make([]string, 0, len(s.ByStatus))
		for k := range s.ByStatus {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			name := k
			if name == "" {
				name = "no status"
			}
			parts = append(parts, textfmt.Thousands(s.ByStatus[k])+" "+name)
		}
		fmt.Fprintf(w, "Enriched %s: %s.\n", Plural(s.Enriched, "person"), strings.Join(parts, ", "))
	}
}

// writeFailed prints the calls that failed and why, and those abandoned
// at the second interrupt.
func writeFailed(w io.Writer, s *engine.Summary) {
	if len(s.Failures) > 0 {
		fmt.Fprintf(w, "Failed (%d):\n", len(s.Failures))
		for _, f := range s.Failures {
			note := ""
			switch {
			case f.Unrecorded:
				note = " (the call completed, but its result could not be recorded)"
			case f.NoCall:
				note = " (no call was made)"
			}
			fmt.Fprintf(w, "  %s: %s%s\n", failureWho(f), errorLine(f.Err), note)
		}
	}
	if len(s.Abandoned) > 0 {
		names := make([]string, 0, len(s.Abandoned))
		enrichments := 0
		for _, c := range s.Abandoned {
			names = append(names, c.Address+personSuffix(c))
			if c.Kind == kind.Enrich {
				enrichments++
			}
		}
		note := ""
		if enrichments > 0 {
			note = "; the next plan shows the enrichments among them as unknown outcomes"
		}
		fmt.Fprintf(w, "Abandoned at the second interrupt, with no answer: %s. %s may have been charged%s.\n",
			strings.Join(names, ", "), oneOrMany(len(s.Abandoned), "It", "They"), note)
	}
}

// writeStopped prints why the run stopped early, what was kept in the
// rescue file, what the next apply makes again, and how to finish.
func writeStopped(w io.Writer, s *engine.Summary, e ending) {
	if s.Stopped != "" {
		reason := s.Stopped
		if s.StoppedInFlight > 0 && e.word != "Apply aborted" {
			reason += fmt.Sprintf("; it waited for the %s in flight", Plural(s.StoppedInFlight, "call"))
		}
		fmt.Fprintf(w, "Stopped early: %s.\n", reason)
	}
	if len(s.Kept) > 0 {
		names := make([]string, 0, len(s.Kept))
		for _, c := range s.Kept {
			names = append(names, c.Address+callSuffix(c))
		}
		fmt.Fprintf(w, "Kept in %s: %s that could not be written into the state (%s). They count as done: the next command folds them in, and none is called again.\n",
			s.KeptIn, Plural(len(s.Kept), "result"), strings.Join(names, ", "))
	}
	if lost := s.Unrecorded(); len(lost) > 0 {
		names := make([]string, 0, len(lost))
		for _, f := range lost {
			names = append(names, failureWho(f))
		}
		fmt.Fprintf(w, "Run apply again to finish. %s completed but could be neither recorded nor kept (%s printed above), so the next apply makes %s again (searches and profile reads use requests of the monthly quota, enrichments credits): %s.\n",
			oneOrMany(len(lost), "This call", "These calls"), oneOrMany(len(lost), "its answer is", "their answers are"), oneOrMany(len(lost), "it", "them"), strings.Join(names, ", "))
	} else if s.Stopped != "" {
		fmt.Fprintln(w, "Run apply again to finish; nothing completed is repeated.")
	}
}

// oneOrMany is one when n is 1, else many.
func oneOrMany(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// failureWho names what failed: the address, and the person of an
// enrichment.
func failureWho(f engine.Failure) string {
	who := f.Address
	if f.Kind == kind.Enrich || f.Kind == kind.Track {
		switch {
		case f.Name != "":
			who += " " + serviceText(f.Name)
		case f.Person != "":
			who += " " + f.Person
		}
	}
	return who
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

var _ engine.WaitProgress = (*jsonProgress)(nil)

// Waiting emits a "waiting" message.
func (p *jsonProgress) Waiting(c engine.Call, d time.Duration, reason string) {
	p.emit(map[string]any{"message_type": "waiting", "call": callJSON(c), "wait_seconds": d.Seconds(), "reason": reason})
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

// jobsBy counts the job changes seen by calls of kind k (by address prefix).
func jobsBy(jobs []engine.JobChange, k kind.Kind) int {
	n := 0
	for _, j := range jobs {
		if address.Kind(j.By) == k {
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

// jsonProgress streams one JSON object per line, each with a message_type.
type jsonProgress struct {
	w   io.Writer
	now func() time.Time
	// hold, when set, receives the run's summary instead of the stream:
	// the apply view emits it once the files are written (see applyJSON).
	hold func(*engine.Summary)
	// warnings are the configuration's, carried by apply_start with the
	// plan's own.
	warnings []plan.Diagnostic
	// errOut is standard error: an answer neither recorded nor kept is
	// printed there too (answer.go).
	errOut io.Writer
}

var _ engine.Progress = (*jsonProgress)(nil)

func (p *jsonProgress) emit(v map[string]any) {
	v["format_version"] = "1"
	v["timestamp"] = p.now().UTC().Format(time.RFC3339Nano)
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	p.w.Write(append(b, '\n'))
}

func callJSON(c engine.Call) map[string]any {
	m := map[string]any{"seq": c.Seq, "kind": c.Kind.String(), "address": c.Address}
	if c.Person != "" {
		m["person"] = c.Person
	}
	if c.Page != "" {
		m["page_name"] = c.Page
	}
	if c.SubSearch != "" {
		m["sub_search"] = c.SubSearch
	}
	return m
}

func (p *jsonProgress) Start(pl *plan.Plan, callsMax, creditsMax int) {
	p.emit(map[string]any{"message_type": "apply_start", "calls_max": callsMax, "credits_max": creditsMax,
		"diagnostics": applyWarnings(p.warnings, pl)})
}

// applyWarnings are the warnings an apply goes ahead with: the
// configuration's and the plan's (a credit balance that may not suffice),
// each once; never null.
func applyWarnings(cfg []plan.Diagnostic, pl *plan.Plan) []plan.Diagnostic {
	out := []plan.Diagnostic{}
	seen := map[string]bool{}
	add := func(ds []plan.Diagnostic) {
		for _, d := range ds {
			if k := d.Summary + "\x00" + d.Detail; d.Severity == "warning" && !seen[k] {
				seen[k] = true
				out = append(out, d)
			}
		}
	}
	add(cfg)
	if pl != nil {
		add(pl.Diagnostics)
	}
	return out
}

func (p *jsonProgress) CallStart(c engine.Call) {
	p.emit(map[string]any{"message_type": "call_start", "call": callJSON(c)})
}

func (p *jsonProgress) CallDone(c engine.Call, r engine.CallResult) {
	m := map[string]any{"message_type": "call_done", "call": callJSON(c),
		"duration_seconds": r.Duration.Seconds(), "credits": r.Credits}
	if c.Kind == kind.Search {
		m["results"] = r.Results
		m["capped"] = r.Capped
		if r.SplitNext != "" {
			m["split_next"] = r.SplitNext
		}
	}
	if c.Kind == kind.Enrich {
		m["validation_status"] = r.Status
	}
	if c.Kind == kind.Track {
		m["profile"] = map[bool]string{true: "left", false: map[bool]string{true: "private", false: "public"}[r.Private]}[r.Left]
	}
	if len(r.Jobs) > 0 {
		m["job_changes"] = jobChangesJSON(r.Jobs)
	}
	p.emit(m)
}

// jobChangesJSON is the JSON form of job changes; never null.
func jobChangesJSON(jobs []engine.JobChange) []map[string]any {
	out := make([]map[string]any, 0, len(jobs))
	for _, j := range jobs {
		out = append(out, map[string]any{"person": j.PersonID, "name": j.Name, "seen_by": j.By,
			"before": map[string]string{"title": j.Before.Title, "company": j.Before.Company},
			"after":  map[string]string{"title": j.After.Title, "company": j.After.Company}})
	}
	return out
}

// peopleSeenJSON is the JSON form of people found gone or private.
func peopleSeenJSON(ps []engine.PersonSeen) []map[string]any {
	out := make([]map[string]any, 0, len(ps))
	for _, p := range ps {
		out = append(out, map[string]any{"person": p.PersonID, "name": p.Name, "seen_by": p.By})
	}
	return out
}

func (p *jsonProgress) CallError(c engine.Call, err error) {
	m := map[string]any{"message_type": "call_error", "call": callJSON(c), "error": err.Error()}
	if ae, ok := err.(*api.Error); ok {
		m["status"] = ae.Status
		m["error_kind"] = ae.Kind.String()
		m["hint"] = ae.Hint()
	}
	p.emit(m)
}

func (p *jsonProgress) Stopping(reason string) {
	p.emit(map[string]any{"message_type": "stopping", "reason": reason})
}

func (p *jsonProgress) Summary(s *engine.Summary) {
	if p.hold != nil {
		p.hold(s)
		return
	}
	p.emit(summaryEvent(s))
}

// summaryEvent is the summary line of a run.
func summaryEvent(s *engine.Summary) map[string]any {
	searches := make([]map[string]any, 0, len(s.Searches))
	for _, o := range s.Searches {
		m := map[string]any{"address": o.Address, "results": o.Results, "kept": o.Kept,
			"added": o.Added, "removed": o.Removed, "capped": o.Capped, "first_run": o.First, "suppressed": o.Suppressed, "changed": o.Changed}
		if o.Split != nil {
			m["split"] = map[string]any{"sub_searches": o.Split.SubSearches, "people": o.Split.People,
				"complete": o.Split.Complete, "saturated_leaves": o.Split.Saturated, "verdict": o.Split.Verdict()}
		}
		searches = append(searches, m)
	}
	unfinished := make([]map[string]any, 0, len(s.SplitsUnfinished))
	for _, u := range s.SplitsUnfinished {
		unfinished = append(unfinished, map[string]any{"address": u.Address, "ran": u.Ran, "done": u.Done, "pending": u.Pending})
	}
	failures := make([]map[string]any, 0, len(s.Failures))
	for _, f := range s.Failures {
		m := map[string]any{"address": f.Address, "kind": f.Kind.String(), "error": f.Err.Error()}
		if f.Person != "" {
			m["person"] = f.Person
		}
		if f.NoCall {
			m["no_call"] = true
		}
		if f.Unrecorded {
			m["unrecorded"] = true
		}
		failures = append(failures, m)
	}
	kept := make([]map[string]any, 0, len(s.Kept))
	for _, c := range s.Kept {
		kept = append(kept, callJSON(c))
	}
	abandoned := make([]map[string]any, 0, len(s.Abandoned))
	for _, c := range s.Abandoned {
		abandoned = append(abandoned, callJSON(c))
	}
	imported := make([]map[string]any, 0, len(s.Imported))
	for _, im := range s.Imported {
		imported = append(imported, map[string]any{"address": im.Address, "rows": im.Rows, "people": im.People,
			"enriched": im.Enriched, "saved": im.Saved, "excluded": im.Excluded, "suppressed": im.Suppressed})
	}
	forgotten := append([]string{}, s.Forgotten...)
	updated := append([]string{}, s.Updated...)
	moved := make([]map[string]string, 0, len(s.Moved))
	for _, m := range s.Moved {
		moved = append(moved, map[string]string{"from": m.From, "to": m.To})
	}
	byStatus := s.ByStatus
	if byStatus == nil {
		byStatus = map[string]int{}
	}
	return map[string]any{"message_type": "summary", "calls": s.Calls, "calls_max": s.CallsPlannedMax,
		"credits": s.Credits, "credits_unknown": s.CreditsUnknown, "credits_max": s.CreditsPlannedMax, "succeeded": s.Succeeded,
		"failed": s.CallsFailed(), "enriched": s.Enriched, "by_status": byStatus, "abandoned": abandoned, "stopped_in_flight": s.StoppedInFlight,
		"searches": searches, "failures": failures, "forgotten": forgotten, "updated": updated, "moved": moved, "expired": s.Expired, "imported": imported, "reused": reusedJSON(s.Reused), "claimed_elsewhere": claimedJSON(s.ClaimedElsewhere), "budget": budgetJSON(s), "not_spent": notSpentJSON(s.NotSpent), "splits_unfinished": unfinished,
		"tracked": s.Tracked, "job_changes": jobChangesJSON(s.Drift.Jobs), "left_network": peopleSeenJSON(s.Drift.Left),
		"turned_private": peopleSeenJSON(s.Drift.Private), "changes_by_field": changesByField(s.Drift.Fields),
		"stopped": s.Stopped, "duration_seconds": s.Duration.Seconds(), "kept": kept, "kept_in": s.KeptIn}
}

// truncCells cuts s to at most n character cells, ending in "..." when cut,
// never inside a character.
func truncCells(s string, n int) string {
	if textfmt.Width(s) <= n {
		return s
	}
	w := 0
	for i, r := range s {
		rw := textfmt.Width(string(r))
		if w+rw > n-3 {
			return s[:i] + "..."
		}
		w += rw
	}
	return s
}

// reusedJSON is the summary's count of enrichments copied from other
// workspaces, by workspace ({} when none).
func reusedJSON(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

// claimedLines say what became of the people another workspace's apply,
// running at the same moment, was enriching: "Enriched by workspace
// dach's apply running now: 3 people copied (no call, no credit), 1 person
// left for the next apply."
func claimedLines(m map[string]engine.ClaimedCount) []string {
	var out []string
	for _, w := range sortedKeys(m) {
		c := m[w]
		var parts []string
		if c.Copied > 0 {
			parts = append(parts, Plural(c.Copied, "person")+" copied (no call, no credit)")
		}
		if c.Left > 0 {
			parts = append(parts, Plural(c.Left, "person")+" left for the next apply, which copies what it records")
		}
		if len(parts) > 0 {
			out = append(out, fmt.Sprintf("Enriched by workspace %s's apply running now: %s.", w, strings.Join(parts, ", ")))
		}
	}
	return out
}

// claimedJSON is the summary's claimed_elsewhere: by workspace, the people
// copied and left ([] when none).
func claimedJSON(m map[string]engine.ClaimedCount) []map[string]any {
	out := []map[string]any{}
	for _, w := range sortedKeys(m) {
		out = append(out, map[string]any{"workspace": w, "copied": m[w].Copied, "left": m[w].Left})
	}
	return out
}

// sortedKeys are the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// budgetJSON says whether the budget stopped the run or was passed (null
// without either).
func budgetJSON(s *engine.Summary) any {
	if !s.BudgetStopped && s.BudgetPassed == "" {
		return nil
	}
	return map[string]any{"stopped": s.BudgetStopped, "passed": s.BudgetPassed}
}

// changesByField counts the changes of a run by field, every field
// present.
func changesByField(fields map[string]int) map[string]int {
	out := make(map[string]int, len(state.DriftFields))
	for _, f := range state.DriftFields {
		out[f] = fields[f]
	}
	return out
}
