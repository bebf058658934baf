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

// memLedger is a budget ledger in memory: held is what the month holds,
// open what the run holds for calls not sent yet.
type memLedger struct {
	mu   sync.Mutex
	held plan.Spending
	open plan.Spending
	// failReleases makes that many releases fail; failSending makes
	// Sending of an enrichment (a call with credits) fail.
	failReleases int
	failSending  error
}

func (l *memLedger) Reserve(month string, add, limit plan.Spending) (plan.Spending, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	next := plan.Spending{Credits: l.held.Credits + add.Credits, Requests: l.held.Requests + add.Requests}
	if (limit.Credits > 0 && next.Credits > limit.Credits) || (limit.Requests > 0 && next.Requests > limit.Requests) {
		return l.held, false, nil
	}
	l.held = next
	l.open = plan.Spending{Credits: l.open.Credits + add.Credits, Requests: l.open.Requests + add.Requests}
	return next, true, nil
}

func (l *memLedger) Sending(s plan.Spending) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failSending != nil && s.Credits > 0 {
		return l.failSending
	}
	l.open = plan.Spending{Credits: l.open.Credits - s.Credits, Requests: l.open.Requests - s.Requests}
	return nil
}

func (l *memLedger) Release(month string, sub plan.Spending, sent bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failReleases > 0 {
		l.failReleases--
		return errors.New("connection lost")
	}
	l.held.Credits -= sub.Credits
	l.held.Requests -= sub.Requests
	if !sent {
		l.open = plan.Spending{Credits: l.open.Credits - sub.Credits, Requests: l.open.Requests - sub.Requests}
	}
	return nil
}

// settle is what the run package does at the end of a run (or the next
// command after a dead one): what the run still holds is given back.
func (l *memLedger) settle() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held = plan.Spending{Credits: l.held.Credits - l.open.Credits, Requests: l.held.Requests - l.open.Requests}
	l.open = plan.Spending{}
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

// TestHardBudgetStopsBeforeTheCallThatWouldPassIt: a hard budget of 2
// credits lets two enrichments go and sends no third: the run stops,
// saying so, and the month holds what was sent (the search's request, two
// enrichments).
func TestHardBudgetStopsBeforeTheCallThatWouldPassIt(t *testing.T) {
	cfg := load(t, budgetTestConfig)
	st := state.New()
	svc := newFake()
	led := &memLedger{}
	sum, err := engine.Run(context.Background(), engine.Options{
		Config: cfg, Plan: build(t, cfg, st), State: st, Journal: &memJournal{}, Service: svc,
		Now:    func() time.Time { return t0 },
		Budget: &engine.Budget{Ledger: led, Month: "2026-11-01", Limit: plan.Spending{Credits: 2, Requests: 100}, Hard: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := svc.count("enrich:"); got != 2 {
		t.Errorf("%d enrichments sent, want 2 (a hard budget of 2 credits)", got)
	}
	if !sum.BudgetStopped || !strings.Contains(sum.Stopped, "the monthly budget would be passed") {
		t.Errorf("budget stopped %v, stopped %q; want the run stopped by the budget", sum.BudgetStopped, sum.Stopped)
	}
	led.settle()
	if held, _ := led.Spent(""); held != (plan.Spending{Credits: 2, Requests: 3}) {
		t.Errorf("the month holds %+v, want 2 credits and 3 requests", held)
	}
}

const budgetTestConfig = `
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
`

// TestBudgetTakeBackTriedAgain: the take-back of the credit of an
// enrichment that certainly failed fails (the ledger's session was
// lost); it is tried again at the next release, and the month holds what
// was spent: the search's request, five enrichments' requests, four
// credits. Before, the credit stayed in the ledger for good.
func TestBudgetTakeBackTriedAgain(t *testing.T) {
	cfg := load(t, budgetTestConfig)
	st := state.New()
	svc := newFake()
	svc.fail["enrich:alpha_1"] = errors.New("500 server error")
	svc.fail["enrich:alpha_3"] = errors.New("500 server error")
	led := &memLedger{failReleases: 1}
	sum, err := engine.Run(context.Background(), engine.Options{
		Config: cfg, Plan: build(t, cfg, st), State: st, Journal: &memJournal{}, Service: svc,
		Now:    func() time.Time { return t0 },
		Budget: &engine.Budget{Ledger: led, Month: "2026-11-01", Limit: plan.Spending{Credits: 100}},
	})
	if err != nil {
		t.Fatal(err)
	}
	led.settle()
	if want := (plan.Spending{Credits: 3, Requests: 6}); led.held != want || sum.BudgetPassed != "" {
		t.Fatalf("the ledger holds %+v (%q); want %+v", led.held, sum.BudgetPassed, want)
	}
	// Failing to the end: the summary says what the ledger still counts.
	st = state.New()
	svc = newFake()
	svc.fail["enrich:alpha_4"] = errors.New("500 server error")
	led = &memLedger{failReleases: 100}
	sum, err = engine.Run(context.Background(), engine.Options{
		Config: cfg, Plan: build(t, cfg, st), State: st, Journal: &memJournal{}, Service: svc,
		Now:    func() time.Time { return t0 },
		Budget: &engine.Budget{Ledger: led, Month: "2026-11-01", Limit: plan.Spending{Credits: 100}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "the budget's ledger could not take back the 1 credit that failed calls did not spend (connection lost); it counts them as spent"; sum.BudgetPassed != want {
		t.Errorf("budget: %q\nwant %q", sum.BudgetPassed, want)
	}
}

// TestBudgetSendingNotNotedIsNotSent: a ledger that cannot note that an
// enrichment is about to be sent stops the run before it is sent (were
// it sent, the next command would give its credit back as never sent):
// the service gets no enrichment, the summary says why, and once the run
// is settled the month holds only the search's request.
func TestBudgetSendingNotNotedIsNotSent(t *testing.T) {
	cfg := load(t, budgetTestConfig)
	st := state.New()
	svc := newFake()
	led := &memLedger{failSending: errors.New("disk full")}
	sum, err := engine.Run(context.Background(), engine.Options{
		Config: cfg, Plan: build(t, cfg, st), State: st, Journal: &memJournal{}, Service: svc,
		Now:    func() time.Time { return t0 },
		Budget: &engine.Budget{Ledger: led, Month: "2026-11-01", Limit: plan.Spending{Credits: 100}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := svc.count("enrich:"); got != 0 {
		t.Fatalf("%d enrichments sent; want none", got)
	}
	led.settle()
	if want := (plan.Spending{Requests: 1}); led.held != want {
		t.Errorf("the ledger holds %+v; want %+v", led.held, want)
	}
	if !strings.Contains(sum.Stopped, "the budget's ledger cannot be written") {
		t.Errorf("stopped: %q", sum.Stopped)
	}
}
