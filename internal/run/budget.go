package run

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// budgetState reads what the API account spent this billing month from
// the backend's ledger, for leadsync { budget } and for the ledger every
// apply records its calls in, with a budget or without: the month from the
// invoicing start date of the billing call (else the last one the state
// recorded, else the calendar month). usage is the answer of the billing
// call just made, nil when none was: that call is counted in the ledger
// as a request first. The ledger is returned open (close
// it with closeLedger); nil when it cannot be read, and the state's Note
// says why, or when nothing is to be counted or recorded (a plan without
// a budget nor a billing call). Since says from when the ledger counts.
//
// What earlier runs of the workspace still hold in the ledger for calls
// they never sent (they died: kill -9, a lost session) is not spent: an
// apply, which holds the workspace's lock, gives it back first (locked);
// a plan without a running apply leaves it but does not count it.
func budgetState(d Deps, cfg *config.Config, st *state.State, usage *api.Usage, locked bool) (*plan.BudgetState, backend.Ledger) {
	return budgetStateIn(d, cfg, st, usage, nil, locked)
}

// budgetStateIn is budgetState in the billing month a saved plan was made
// in (saved, when it has a budget): apply of a saved plan makes no billing
// call, and must count in the month the plan counted in.
func budgetStateIn(d Deps, cfg *config.Config, st *state.State, usage *api.Usage, saved *plan.Budget, locked bool) (*plan.BudgetState, backend.Ledger) {
	if cfg.Settings.Budget == nil && usage == nil && !locked {
		return nil, nil
	}
	inv := st.Usage.InvoicingStartDate
	if usage != nil && usage.InvoicingStartDate != "" {
		inv = usage.InvoicingStartDate
	}
	start, next, fromInv := plan.BillingMonth(inv, d.now())
	if saved != nil {
		s, err1 := time.Parse("2006-01-02", saved.MonthStart)
		n, err2 := time.Parse("2006-01-02", saved.NextMonth)
		if err1 == nil && err2 == nil && !d.now().Before(s) && d.now().Before(n) {
			start, next, fromInv = s, n, saved.MonthFrom == "invoicing_start_date"
		}
	}
	bs := &plan.BudgetState{Month: start, Next: next, Invoicing: fromInv}
	if d.Account == "" {
		bs.Note = "no API key tells the account"
		return bs, nil
	}
	led, ok, err := backend.LedgerOf(d.Backend, d.Account)
	switch {
	case err != nil:
		bs.Note = "the ledger cannot be read: " + err.Error()
		return bs, nil
	case !ok:
		bs.Note = d.Backend.Describe() + " keeps no ledger"
		return bs, nil
	}
	if locked {
		// Its error shows in what follows: a ledger that cannot be
		// written cannot be read or reserved in either.
		_, _ = led.Settle("")
	}
	var spent backend.Spending
	if usage != nil {
		// The billing call just made is a request of the monthly quota
		// like any other first-generation call (the service counts it):
		// the ledger counts it too, before saying what the month holds.
		spent, _, err = led.Reserve(plan.MonthKey(start), backend.Spending{Requests: 1}, backend.Spending{})
	} else {
		spent, err = led.Spent(plan.MonthKey(start))
	}
	if err != nil {
		closeLedger(led)
		bs.Note = "the ledger cannot be read: " + err.Error()
		return bs, nil
	}
	if !locked && RunningOn(d.Backend, st) == nil {
		open, err := led.Open(plan.MonthKey(start))
		if err == nil {
			spent = spent.Minus(open)
		}
	}
	bs.Spent = &plan.Spending{Credits: spent.Credits, Requests: spent.Requests}
	if since, err := led.Since(); err == nil {
		if since.IsZero() {
			since = d.now() // nothing recorded yet: it counts from now on
		}
		bs.Since = &since
	}
	return bs, led
}

// settleLedger gives back, at the end of an apply, what its run still
// holds in the ledger for calls it did not send (a take-back that failed
// during a fault); when the ledger cannot be written, the next command
// under the workspace's lock gives it back. It closes the ledger.
func settleLedger(l backend.Ledger) {
	if l == nil {
		return
	}
	_, _ = l.Settle("")
	closeLedger(l)
}

// closeLedger closes a ledger that holds a connection.
func closeLedger(l backend.Ledger) {
	if c, ok := l.(io.Closer); ok {
		c.Close()
	}
}

// engineBudget is what the engine enforces of the budget: each call
// reserved in the ledger before it is made. Without a budget the run
// records its calls in the ledger all the same, with no limit: a budget
// added later in the month, or a teammate's, counts them.
// A write of the ledger that fails is tried again as the rescue layer
// tries a result's (retry; none without the layer): a database that
// restarts during the run does not end it.
func engineBudget(cfg *config.Config, bs *plan.BudgetState, led backend.Ledger, retry retryFunc) *engine.Budget {
	if led == nil || bs == nil {
		return nil
	}
	b := &engine.Budget{Ledger: ledgerAdapter{l: led, run: newRunID(), retry: orOnce(retry)}, Month: plan.MonthKey(bs.Month)}
	if bg := cfg.Settings.Budget; bg != nil {
		b.Limit, b.Hard = plan.Spending{Credits: bg.CreditsPerMonth, Requests: bg.RequestsPerMonth}, bg.Hard
	}
	return b
}

// newRunID names one run's holds in the ledger.
func newRunID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// retryFunc runs op, again while it fails for as long as the run may
// wait; what names the write in the notes.
type retryFunc func(what string, op func() error) error

// orOnce is retry, or one try when it is nil.
func orOnce(retry retryFunc) retryFunc {
	if retry == nil {
		return func(_ string, op func() error) error { return op() }
	}
	return retry
}

// writeRetry is the retry of the rescue layer d.Backend is within, in
// the run's ctx; nil without the layer.
func writeRetry(ctx context.Context, d Deps) retryFunc {
	r := rescuingIn(d.Backend)
	if r == nil {
		return nil
	}
	return func(what string, op func() error) error { return r.retried(ctx, what, op) }
}

// ledgerAdapter is a backend ledger as the engine sees it: the holds of
// one run. A hold and a call's sending are tried again while they fail
// (retry). Made twice when an answer was lost, either counts more as
// held or spent, never less: the run's surplus hold is given back at its
// end (settleLedger) or by the next command.
type ledgerAdapter struct {
	l     backend.Ledger
	run   string
	retry retryFunc
}

func (a ledgerAdapter) Reserve(month string, add, limit plan.Spending) (plan.Spending, bool, error) {
	var held backend.Spending
	var ok bool
	err := a.retry("reserving a call in the budget's ledger", func() (err error) {
		held, ok, err = a.l.Hold(a.run, month, backend.Spending(add), backend.Spending(limit))
		return err
	})
	return plan.Spending(held), ok, err
}

func (a ledgerAdapter) Sending(s plan.Spending) error {
	return a.retry("noting a call sent in the budget's ledger", func() error {
		return a.l.Sending(a.run, backend.Spending(s))
	})
}

// Release is tried once: a take-back whose answer was lost, made again,
// would count less than was spent. The engine counts what it could not
// take back as spent.
func (a ledgerAdapter) Release(month string, sub plan.Spending, sent bool) error {
	if sent {
		return a.l.Release(month, backend.Spending(sub))
	}
	return a.l.Unhold(a.run, backend.Spending(sub))
}

func (a ledgerAdapter) Spent(month string) (plan.Spending, error) {
	s, err := a.l.Spent(month)
	return plan.Spending(s), err
}

// BudgetError refuses an apply that a hard budget does not allow, before
// any call: the budget cannot be checked, or a saved plan may pass it now
// (a teammate spent since it was made).
type BudgetError struct{ Reason string }

func (e *BudgetError) Error() string { return e.Reason }

// budgetUnchecked refuses a hard budget whose ledger cannot be read: an
// apply must not spend what it cannot count.
func budgetUnchecked(cfg *config.Config, bs *plan.BudgetState) error {
	bg := cfg.Settings.Budget
	if bg == nil || !bg.Hard || bs == nil || bs.Spent != nil {
		return nil
	}
	return &BudgetError{Reason: "the budget (enforce = \"hard\") cannot be checked: " + bs.Note + "; nothing was spent"}
}

// checkSavedBudget checks a saved plan against the budget as the ledger
// holds it now: others may have spent since the plan was made.
func checkSavedBudget(cfg *config.Config, p *plan.Plan, bs *plan.BudgetState) error {
	if err := budgetUnchecked(cfg, bs); err != nil {
		return err
	}
	bg := cfg.Settings.Budget
	if bg == nil || !bg.Hard || bs == nil || bs.Spent == nil {
		return nil
	}
	t := p.Totals
	over := (bg.CreditsPerMonth > 0 && t.CreditsMax > 0 && bs.Spent.Credits+t.CreditsMax > bg.CreditsPerMonth) ||
		(bg.RequestsPerMonth > 0 && t.QuotaCallsMax > 0 && bs.Spent.Requests+t.QuotaCallsMax > bg.RequestsPerMonth)
	if !over {
		return nil
	}
	return &BudgetError{Reason: fmt.Sprintf("the saved plan may pass the monthly budget now (%s spent this billing month, %s in the budget; the plan may spend up to %s and %s): run plan again; nothing was spent",
		budgetPair(bs.Spent.Credits, bs.Spent.Requests, bg), budgetPair(bg.CreditsPerMonth, bg.RequestsPerMonth, bg),
		plural(t.CreditsMax, "credit"), plural(t.QuotaCallsMax, "request"))}
}

// budgetPair writes credits and requests of the limits the budget sets.
func budgetPair(credits, requests int, bg *config.Budget) string {
	var parts []string
	if bg.CreditsPerMonth > 0 {
		parts = append(parts, plural(credits, "credit"))
	}
	if bg.RequestsPerMonth > 0 {
		parts = append(parts, plural(requests, "request"))
	}
	return strings.Join(parts, " and ")
}

func plural(n int, noun string) string { return textfmt.Plural(n, noun) }

// CountBillingCall tells the ledger of a billing call that `leadsync
// usage` made (usage is its answer): it is a request of the monthly quota
// like any other first-generation call, so a requests budget counts it,
// in the billing month usage names, whether or not this configuration
// declares one. Nothing is done without an API key or a backend that
// keeps a ledger.
func CountBillingCall(d Deps, cfg *config.Config, usage *api.Usage) error {
	if d.Account == "" || usage == nil {
		return nil
	}
	led, ok, err := backend.LedgerOf(d.Backend, d.Account)
	if err != nil || !ok {
		return err
	}
	defer closeLedger(led)
	start, _, _ := plan.BillingMonth(usage.InvoicingStartDate, d.now())
	_, _, err = led.Reserve(plan.MonthKey(start), backend.Spending{Requests: 1}, backend.Spending{})
	return err
}
