package engine

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// Summary is the outcome of a run.
type Summary struct {
	CallsPlannedMax   int
	CreditsPlannedMax int
	Calls             int // calls started
	// Credits the service charged: enrichments that succeeded ×
	// credits_per_enrich. A failed call (a 500, a 403) charged nothing.
	Credits int
	// CreditsUnknown are the credits of enrichments whose outcome is
	// unknown (the answer was lost or unusable): they may have been
	// charged. Recorded in state (state.UnknownEnrichment).
	CreditsUnknown int
	Succeeded      int
	Failures       []Failure
	Searches       []SearchOutcome
	Profiles       []string // profile addresses read
	Enriched       int
	ByStatus       map[string]int // enrichments of this run by validation status
	Forgotten      []string
	// Moved are the moves recorded (moved blocks), before any call.
	Moved []state.Move
	// Updated are the addresses updated without a call (plan.Update): a
	// search's kept leads cut, a profile read shared.
	Updated []string
	// Expired is the number of people removed by retention.
	Expired int
	// Imported are the import blocks whose files were adopted.
	Imported []ImportOutcome
	// Reused counts, by workspace, the enrichments copied from other
	// workspaces of the backend: no call, no credit.
	Reused map[string]int
	// ClaimedElsewhere counts, by workspace, the people that workspace's
	// apply, running at the same moment, was enriching when this run came
	// to them: copied once it recorded them (counted in Reused too), or
	// left for the next apply.
	ClaimedElsewhere map[string]ClaimedCount
	// NotSpent is what the run did not pay for, and why, as people (each
	// would have cost credits_per_enrich): people the exclude blocks took
	// out of the enrich blocks' candidates, people an import of the run
	// gave an e-mail, enrichments copied from other workspaces.
	NotSpent NotSpent
	// BudgetStopped is set when a hard budget stopped the run;
	// BudgetPassed says when a soft one was passed.
	BudgetStopped bool
	BudgetPassed  string
	// Stopped is non-empty when the run stopped early, and says why.
	Stopped string
	// StoppedInFlight is the number of calls in flight when the run
	// stopped (sent and not answered; not those still waiting for the
	// rate limit, which are not sent): it waited for them (unless it was
	// aborted).
	StoppedInFlight int
	// Abandoned are the calls in flight when the run was aborted (the
	// second Ctrl-C): sent, never answered; they may have been charged.
	Abandoned []Call
	Duration  time.Duration
	// SplitsUnfinished are split searches whose run stopped before their
	// tree was complete (resumed by the next apply).
	SplitsUnfinished []SplitUnfinished
	// Tracked counts the track reads made (gone and private included).
	Tracked int
	// Drift is what the calls of the run saw change: job changes, people
	// who left the network or turned private, changes by field.
	Drift Drift
	// Kept are the calls whose results could not be written where the
	// state lives and were kept in the file KeptIn (a rescue file) for the
	// next command to fold in: they count as succeeded (an enrichment's
	// credits as charged), and nothing of them is called again. The run
	// stopped at the first.
	Kept   []Call
	KeptIn string
}

// Failure is a call that failed for good, or a problem of the run that
// was no call (NoCall).
type Failure struct {
	Address string
	Kind    kind.Kind
	Person  string // person ID of an enrich call
	Name    string // the person's name, for messages
	Err     error
	// NoCall is set when nothing was sent: the failure is the run's (a
	// where that cannot be evaluated, a bound reached, a read shared
	// with another that could not be recorded), not a call's.
	NoCall bool
	// Unrecorded is set when the call completed, its answer arrived, but
	// the result could not be recorded, nor kept anywhere: the next apply
	// makes it again. Answer is then what came back, for the user to keep
	// (it is printed on standard error).
	Unrecorded bool
	Answer     *state.Event
}

// SearchOutcome is the sync summary of one search run.
type SearchOutcome struct {
	Address string
	Results int  // as returned by the service
	Kept    int  // after max_results
	Added   int  // people new to this search since its last run; on its first run, all it kept
	Removed int  // people gone since its last run
	Capped  bool // exactly the network's cap: probably cut off (split: incomplete)
	// First is true when the search had never run before.
	First bool
	// Suppressed counts the results naming people erased with leadsync
	// forget: dropped, not kept.
	Suppressed int
	// Changed counts the people of this run whose title, company or
	// location it found changed since state last saw them.
	Changed int
	// Split is the completeness of a split search's run; nil otherwise.
	Split *state.SplitSummary
}

// Failed reports whether anything failed or the run stopped early.
func (s *Summary) Failed() bool { return len(s.Failures) > 0 || s.Stopped != "" }

// CallsFailed counts the failures that were calls: with Succeeded, they
// add up to Calls.
func (s *Summary) CallsFailed() int {
	n := 0
	for _, f := range s.Failures {
		if !f.NoCall {
			n++
		}
	}
	return n
}

// Unrecorded lists the calls that completed but whose results could not
// be recorded: the next apply makes them again.
func (s *Summary) Unrecorded() []Failure {
	var out []Failure
	for _, f := range s.Failures {
		if f.Unrecorded {
			out = append(out, f)
		}
	}
	return out
}

// refund gives back the budget of a call that was not made.
func (r *runner) refund(t task) {
	r.unreserve(t, false)
	r.callsBudget++
	if t.call.Kind != kind.Enrich {
		return
	}
	r.creditsBudget += r.cpe
	delete(r.claimed, t.call.Person)
	for _, b := range r.enrichBlocks {
		if b.cfg.Address == t.call.Address {
			b.budget++
		}
	}
}

// checkCutShort makes a run that did less than its plan say so: when an
// enrich block, or the run, has used its bound while people are still to
// enrich (or a split search reached its bound), the run ends as stopped,
// with why. With a plan that holds, neither happens.
func (r *runner) checkCutShort() {
	if r.stopped {
		return
	}
	left := map[string]bool{}
	if len(r.enrichBlocks) > 0 && !r.fillWhole() {
		return
	}
	for _, b := range r.enrichBlocks {
		if b.broken || (b.budget > 0 && r.creditsBudget >= r.cpe) {
			continue // not held back by a bound
		}
		r.mu.Lock()
		todo, err := r.cands.Claimed(r.st, b.cfg, r.planTime(), r.claimed)
		r.mu.Unlock()
		if err != nil {
			continue
		}
		for _, id := range todo {
			if _, ok := r.claimed[id]; ok {
				continue
			}
			if p := r.st.People[id]; p != nil && p.Lead.PageName != "" {
				left[id] = true
			}
		}
	}
	reason := r.cut
	if len(left) > 0 {
		reason = fmt.Sprintf("the plan's bound of %s is reached with %s more %s to enrich; run plan again to see the rest",
			textfmt.Plural(r.sum.CreditsPlannedMax, "credit"), textfmt.Thousands(len(left)), oneOrMany(len(left), "person", "people"))
	}
	if reason != "" {
		r.halt(reason)
	}
}

// oneOrMany is one when n is 1, else many.
func oneOrMany(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (r *runner) finishSummary() {
	r.finishBudget()
	r.sum.NotSpent.Excluded = r.cands.Excluded()
	for i := range r.sum.Imported {
		im := &r.sum.Imported[i]
		im.Saved, im.Excluded = r.importCounts(im.Address)
		r.sum.NotSpent.Imported += im.Saved
	}
	for _, n := range r.sum.Reused {
		r.sum.NotSpent.Reused += n
	}
	r.sum.NotSpent.CreditsPerEnrich = r.cpe
	r.boundNotSpent()
	for addr := range r.ranSearches {
		rec := r.st.Searches[addr]
		if rec == nil {
			continue // forgotten or re-keyed since; nothing to report
		}
		first := !r.hadRun[addr]
		added := rec.Added
		if first {
			// Every person a first run keeps is new to the search.
			added = len(rec.LeadIDs)
		}
		r.sum.Searches = append(r.sum.Searches, SearchOutcome{
			Address: addr, Results: rec.ResultCount, Kept: len(rec.LeadIDs),
			Added: added, Removed: rec.Removed, Capped: rec.Capped, First: first, Suppressed: rec.Suppressed, Changed: rec.Changed,
			Split: rec.SplitSummary(),
		})
	}
	r.sum.SplitsUnfinished = r.unfinishedSplits()
	sort.Slice(r.sum.SplitsUnfinished, func(i, j int) bool {
		return r.sum.SplitsUnfinished[i].Address < r.sum.SplitsUnfinished[j].Address
	})
	sort.Slice(r.sum.Searches, func(i, j int) bool { return r.sum.Searches[i].Address < r.sum.Searches[j].Address })
}

// searchLabel is a short description of a search's request.
func searchLabel(s *config.Search) string {
	keys := make([]string, 0, len(s.Request.Params))
	for k := range s.Request.Params {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		// keywords and searchUrl first.
		pi, pj := keys[i] == "keywords" || keys[i] == "searchUrl", keys[j] == "keywords" || keys[j] == "searchUrl"
		if pi != pj {
			return pi
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	for _, k := range keys {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		switch v := s.Request.Params[k].(type) {
		case string:
			fmt.Fprintf(&b, "%s=%q", k, v)
		case []string:
			fmt.Fprintf(&b, "%s=[%s]", k, strings.Join(v, ", "))
		default:
			fmt.Fprintf(&b, "%s=%v", k, v)
		}
	}
	return b.String()
}
