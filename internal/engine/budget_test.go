package engine_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

// memLedger is a budget ledger in memory.
type memLedger struct {
	mu   sync.Mutex
	held plan.Spending
}

func (l *memLedger) Reserve(month string, add, limit plan.Spending) (plan.Spending, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	next := plan.Spending{Credits: l.held.Credits + add.Credits, Requests: l.held.Requests + add.Requests}
	if (limit.Credits > 0 && next.Credits > limit.Credits) || (limit.Requests > 0 && next.Requests > limit.Requests) {
		return l.held, false, nil
	}
	l.held = next
	return next, true, nil
}

func (l *memLedger) Release(month string, sub plan.Spending) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held.Credits -= sub.Credits
	l.held.Requests -= sub.Requests
	return nil
}

func (l *memLedger) Spent(string) (plan.Spending, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held, nil
}

// TestSoftBudgetSaysTheFinalTotals: a soft budget of 2 credits is passed
// by the third enrichment (3 credits, 4 requests then), and the run goes
// on to the fifth, which fails (its credit is taken back). What the
// summary says is what the month holds at the end (4 credits, 6 requests:
// the search, five enrichments), not the figure of the moment it was
// first passed.
func TestSoftBudgetSaysTheFinalTotals(t *testing.T) {
	cfg := load(t, `
api {
  sandbox     = true
  parallelism = 1
  max_credits = 1000
}
search "a" {
  keywords = "alpha"
}
enrich "all" {
  from = [search.a]
}
`)
	st := state.New()
	svc := newFake()
	svc.fail["enrich:alpha_4"] = errors.New("500 server error")
	led := &memLedger{}
	sum, err := engine.Run(context.Background(), engine.Options{
		Config: cfg, Plan: build(t, cfg, st), State: st, Journal: &memJournal{}, Service: svc,
		Now:    func() time.Time { return t0 },
		Budget: &engine.Budget{Ledger: led, Month: "2026-11-01", Limit: plan.Spending{Credits: 2, Requests: 100}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := svc.count("enrich:"); got != 5 {
		t.Fatalf("%d enrichments, want 5 (the budget is soft)", got)
	}
	want := "the monthly budget is passed (4 of 2 credits, 6 of 100 requests)"
	if !strings.HasPrefix(sum.BudgetPassed, want) {
		t.Errorf("budget passed: %q\nwant it to start %q", sum.BudgetPassed, want)
	}
}
