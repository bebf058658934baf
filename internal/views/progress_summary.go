package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/textfmt"
)

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
		var from []string
		for _, w := range sortedKeys(s.Reused) {
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
		// By the sheets' words: the service's "empty" and no status are
		// one "not found".
		byName := map[string]int{}
		for k, n := range s.ByStatus {
			byName[export.StatusText(k)] += n
		}
		var parts []string
		for _, k := range sortedKeys(byName) {
			parts = append(parts, textfmt.Thousands(byName[k])+" "+k)
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
