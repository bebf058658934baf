package engine

import (
	"fmt"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// Budget is leadsync { budget } as a run enforces it: every call is
// reserved in the account's ledger, in the run's name, before it is
// started (atomically with the check of the limit, so that runs at the
// same time never pass it together); the ledger is told when the call is
// about to be sent (before it leaves: a run killed after that counts it,
// charged or of unknown outcome, and a run killed before leaves a hold
// that the next command gives back); what a call did not spend is
// released.
type Budget struct {
	Ledger BudgetLedger
	Month  string // the billing month's start date
	Limit  plan.Spending
	// Hard stops the run before a call would pass a limit; soft records
	// the spending and says the budget was passed.
	Hard bool
}

// BudgetLedger is the ledger of the API account (a backend's), as one
// run holds its reservations in it.
type BudgetLedger interface {
	// Reserve holds add for a call of the run, unless it would pass limit.
	Reserve(month string, add, limit plan.Spending) (held plan.Spending, ok bool, err error)
	// Sending says that s of the run's hold is about to be sent: it
	// counts as spent from then on, unless Release takes it back.
	Sending(s plan.Spending) error
	// Release takes back what a call did not spend: sent says whether
	// the call was sent (Sending was told), so whether sub is still held.
	Release(month string, sub plan.Spending, sent bool) error
	// Spent is what the month holds now.
	Spent(month string) (plan.Spending, error)
}

// errLedger is the stop of a call whose sending the budget's ledger could
// not note: it is not sent (sent, it would be given back as never sent
// were the run to die).
type errLedger struct{ cause error }

func (e *errLedger) Error() string {
	return "the budget's ledger cannot be written, so no more calls are made: " + e.cause.Error()
}

func (e *errLedger) Unwrap() error { return e.cause }

// sending tells the ledger that t is about to be sent (see starting).
func (r *runner) sending(t task) error {
	b := r.opts.Budget
	if b == nil {
		return nil
	}
	s := r.cost(t)
	if s == (plan.Spending{}) {
		return nil
	}
	// Tried twice: a ledger whose database session was just cut off
	// connects again on the next try.
	err := b.Ledger.Sending(s)
	if err != nil {
		err = b.Ledger.Sending(s)
	}
	if err != nil {
		return &errLedger{cause: err}
	}
	return nil
}

// cost is what a call may spend: an enrichment its credits and a request
// of the quota; a first-generation search or profile read a request.
func (r *runner) cost(t task) plan.Spending {
	switch {
	case t.call.Kind == kind.Enrich:
		return plan.Spending{Credits: r.cpe, Requests: 1}
	case r.opts.Config.API.Generation != api.Gen2:
		return plan.Spending{Requests: 1}
	}
	return plan.Spending{}
}

// reserve reserves t's cost in the budget's ledger before it starts. A
// hard budget that the call would pass, or a ledger that cannot be
// written, stops the run: false. A soft budget passed is noted in the
// summary, once.
func (r *runner) reserve(t task) bool {
	b := r.opts.Budget
	if b == nil {
		return true
	}
	add := r.cost(t)
	if add == (plan.Spending{}) {
		return true
	}
	limit := plan.Spending{}
	if b.Hard {
		limit = b.Limit
	}
	held, ok, err := b.Ledger.Reserve(b.Month, add, limit)
	if err != nil {
		r.halt("the budget's ledger cannot be written, so no more calls are made: " + err.Error())
		return false
	}
	if !ok {
		r.sum.BudgetStopped = true
		r.halt(fmt.Sprintf("the monthly budget would be passed (%s); no more calls are made this billing month", budgetHeld(held, b.Limit)))
		return false
	}
	if !b.Hard && over(held, b.Limit) {
		// Said at the end, with what the month holds then (finishBudget).
		r.softPassed = true
	}
	return true
}

// over reports whether held passes a limit (0: none).
func over(held, limit plan.Spending) bool {
	return (limit.Credits > 0 && held.Credits > limit.Credits) || (limit.Requests > 0 && held.Requests > limit.Requests)
}

// finishBudget says, at the end of a run that passed a soft budget, what
// the month holds now: every call of the run counted, what failed calls
// did not spend taken back (and what teammates spent meanwhile), not the
// figure of the moment it was first passed. A month back within its
// limits once failed calls were taken back is not passed.
func (r *runner) finishBudget() {
	b := r.opts.Budget
	if b == nil {
		return
	}
	r.releaseOwed()
	if r.owed != (plan.Spending{}) && r.sum.BudgetPassed == "" {
		r.sum.BudgetPassed = fmt.Sprintf("the budget's ledger could not take back the %s that failed calls did not spend (%v); it counts them as spent", textfmt.Plural(r.owed.Credits, "credit"), r.owedErr)
	}
	if !r.softPassed || r.sum.BudgetPassed != "" {
		return
	}
	held, err := b.Ledger.Spent(b.Month)
	switch {
	case err != nil:
		r.sum.BudgetPassed = "the monthly budget is passed; the budget is soft, so the run went on (the ledger cannot be read to say by how much: " + err.Error() + ")"
	case over(held, b.Limit):
		r.sum.BudgetPassed = fmt.Sprintf("the monthly budget is passed (%s); the budget is soft, so the run went on", budgetHeld(held, b.Limit))
	}
}

// unreserve releases what t did not spend: everything when it was not
// sent; the credits of an enrichment that certainly failed. What the
// ledger cannot take back of a call not sent stays held in the run's name,
// and is given back when the run is settled (at its end, or by the next
// command); the credits of a sent call are owed, and taken back at the
// next release or at the end of the run.
func (r *runner) unreserve(t task, sent bool) {
	b := r.opts.Budget
	if b == nil {
		return
	}
	sub := r.cost(t)
	if sent {
		sub.Requests = 0 // it reached the service: it may count in the quota
	}
	if sub == (plan.Spending{}) {
		return
	}
	r.releaseOwed()
	if err := b.Ledger.Release(b.Month, sub, sent); err != nil && sent {
		r.owed = plan.Spending{Credits: r.owed.Credits + sub.Credits, Requests: r.owed.Requests + sub.Requests}
		r.owedErr = err
	}
}

// releaseOwed tries again to take back what sent calls did not spend and
// the ledger could not take back then.
func (r *runner) releaseOwed() {
	if r.owed == (plan.Spending{}) {
		return
	}
	b := r.opts.Budget
	if err := b.Ledger.Release(b.Month, r.owed, true); err != nil {
		r.owedErr = err
		return
	}
	r.owed = plan.Spending{}
}

// budgetHeld says what the ledger holds against the limits.
func budgetHeld(held, limit plan.Spending) string {
	var parts []string
	if limit.Credits > 0 {
		parts = append(parts, fmt.Sprintf("%s of %s credits", textfmt.Thousands(held.Credits), textfmt.Thousands(limit.Credits)))
	}
	if limit.Requests > 0 {
		parts = append(parts, fmt.Sprintf("%s of %s requests", textfmt.Thousands(held.Requests), textfmt.Thousands(limit.Requests)))
	}
	return joinComma(parts)
}

func joinComma(parts []string) string {
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ", "
		}
		out += p
	}
	return out
}

// NotSpent is what a run did not pay for, by reason, in people.
type NotSpent struct {
	Excluded, Imported, Reused int
	// CreditsPerEnrich is what each would have cost.
	CreditsPerEnrich int
}

// boundNotSpent keeps what the run says it did not spend within what its
// enrich blocks could have spent: when each has a limit, no more people
// than their limits together, less the places the run's enrichments and
// copies took. The copies are exact (each took a place); the people
// excluded, then those imported, are cut to the places left.
func (r *runner) boundNotSpent() {
	if len(r.enrichBlocks) == 0 {
		return // no block ran: nothing to bound by
	}
	bound := 0
	for _, b := range r.enrichBlocks {
		if b.cfg.Limit <= 0 {
			return
		}
		bound += b.cfg.Limit
	}
	n := &r.sum.NotSpent
	left := max(bound-n.Reused-r.sum.Enriched, 0)
	n.Imported = min(n.Imported, left)
	n.Excluded = min(n.Excluded, left-n.Imported)
}

// Credits is the credits not spent, in all.
func (n NotSpent) Credits() int { return (n.Excluded + n.Imported + n.Reused) * n.CreditsPerEnrich }
