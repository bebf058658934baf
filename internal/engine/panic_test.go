package engine_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
)

// lostAnswers is fakeService whose calls named in lost are sent and
// answered with nothing: building the event from the answer panics in
// the worker (a bug after the call was paid for).
type lostAnswers struct {
	*fakeService
	lost map[string]bool
}

func (l *lostAnswers) Search(ctx context.Context, gen api.Generation, req api.SearchRequest) (*api.SearchResult, error) {
	res, err := l.fakeService.Search(ctx, gen, req)
	if kw, _ := req.Params["keywords"].(string); l.lost["search:"+kw] {
		return nil, nil
	}
	return res, err
}

func (l *lostAnswers) Enrich(ctx context.Context, req api.PageRequest) (*person.EnrichedProfile, error) {
	res, err := l.fakeService.Enrich(ctx, req)
	if l.lost["enrich:"+req.PageName] {
		return nil, nil
	}
	return res, err
}

// runPanicking runs basic at parallelism 1 against svc and returns what
// the run recorded; the run must end on the worker's panic.
func runPanicking(t *testing.T, svc api.Service) (*engine.Summary, *memJournal) {
	t.Helper()
	return runPanickingWith(t, svc, func(*engine.Options) {})
}

// runPanickingWith is runPanicking with the options set changes.
func runPanickingWith(t *testing.T, svc api.Service, set func(*engine.Options)) (*engine.Summary, *memJournal) {
	t.Helper()
	cfg := load(t, basic)
	cfg.API.Parallelism = 1
	st := state.New()
	j := &memJournal{}
	opts := engine.Options{
		Config: cfg, Plan: build(t, cfg, st), State: st, Journal: j, Service: svc,
		Now: func() time.Time { return t0 },
	}
	set(&opts)
	sum, err := engine.Run(context.Background(), opts)
	if _, ok := errors.AsType[*recovered.Panic](err); !ok {
		t.Fatalf("run: %v, want the worker's panic", err)
	}
	return sum, j
}

// TestACallWhoseAnswerAPanicLostIsOfUnknownOutcome: a worker that panics
// after its call was answered (the answer never recorded) leaves the call
// a failure of unknown outcome, never a call made that neither
// succeeded nor failed; an enrichment's credits are counted as possibly
// charged, and state says so (enrich_unknown).
func TestACallWhoseAnswerAPanicLostIsOfUnknownOutcome(t *testing.T) {
	svc := &lostAnswers{newFake(), map[string]bool{"search:alpha": true, "search:beta": true}}
	sum, j := runPanicking(t, svc)
	if sum.Calls != 1 || sum.Succeeded != 0 || len(sum.Failures) != 1 || !hasEvent(j, state.EventFailure, sum.Failures[0].Address) {
		t.Errorf("a search's answer lost: %d calls, %d succeeded, failures %v, journal %v; want the call failed, in state",
			sum.Calls, sum.Succeeded, sum.Failures, j.events)
	}
	svc = &lostAnswers{newFake(), map[string]bool{"enrich:alpha_0": true, "enrich:beta_0": true, "enrich:Max_Mustermann": true}}
	sum, j = runPanicking(t, svc)
	if sum.CreditsUnknown != 1 || sum.Credits != 0 || sum.Calls != sum.Succeeded+len(sum.Failures) || !hasEvent(j, state.EventEnrichUnknown, "enrich.all") {
		t.Errorf("an enrichment's answer lost: %d calls, %d succeeded, failures %v, credits %d, unknown %d, journal %v; want its credit unknown, in state",
			sum.Calls, sum.Succeeded, sum.Failures, sum.Credits, sum.CreditsUnknown, j.events)
	}
}

// hasEvent reports whether j recorded an event of kind k for address.
func hasEvent(j *memJournal, k state.EventKind, address string) bool {
	for _, e := range j.events {
		if e.Kind == k && e.Address == address {
			return true
		}
	}
	return false
}

// panickySearch is fakeService whose every search panics once sent (a
// bug in the call).
type panickySearch struct{ *fakeService }

func (p panickySearch) Search(ctx context.Context, gen api.Generation, req api.SearchRequest) (*api.SearchResult, error) {
	if _, err := p.fakeService.Search(ctx, gen, req); err != nil {
		return nil, err
	}
	panic("a bug in the call")
}

// TestNoCallStartsAfterAWorkersPanic: with one call at a time and more
// queued, the first call's panic ends the run: the service sees that
// call and no other.
func TestNoCallStartsAfterAWorkersPanic(t *testing.T) {
	svc := panickySearch{newFake()}
	sum, _ := runPanicking(t, svc)
	if n := svc.count(""); n != 1 || sum.Calls != 1 {
		t.Errorf("the service saw %d calls (%v), the summary %d; want only the one that panicked", n, svc.calls, sum.Calls)
	}
}

// panickyLedger is memLedger whose Sending of the first enrichment (a call
// with credits) panics: a bug in the start hook of the call, after its
// pending enrichment is noted and before it is sent. The real client
// reports the send first, so a panic of the service's call never comes
// this early.
type panickyLedger struct {
	*memLedger
	panicked bool
}

func (l *panickyLedger) Sending(s plan.Spending) error {
	if s.Credits > 0 && !l.panicked {
		l.panicked = true
		panic("a bug in the ledger")
	}
	return l.memLedger.Sending(s)
}

// TestAWorkerPanickingBeforeItsSendGivesTheCallBack: a worker that panics
// before its enrichment is sent (in the start hook) made no call. The
// service sees no enrichment, and no later call starts. The summary counts
// no call, credit or unknown credit for it. State voids its pending
// enrichment (no enrich_unknown), and the budget's ledger gets its credit
// back.
func TestAWorkerPanickingBeforeItsSendGivesTheCallBack(t *testing.T) {
	svc, led := newFake(), &memLedger{}
	sum, j := runPanickingWith(t, svc, func(o *engine.Options) {
		o.Budget = &engine.Budget{Ledger: &panickyLedger{memLedger: led}, Month: "2026-11-01", Limit: plan.Spending{Credits: 100, Requests: 100}}
	})
	if n := svc.count("enrich:"); n != 0 || sum.Calls != svc.count("") {
		t.Errorf("the service saw %d enrichments (%v), the summary %d calls; want none, and the calls the service saw", n, svc.calls, sum.Calls)
	}
	if sum.Credits != 0 || sum.CreditsUnknown != 0 || len(sum.Failures) != 0 || hasEvent(j, state.EventEnrichUnknown, "enrich.all") {
		t.Errorf("%d credits, %d unknown, failures %v, journal %v; want no credit spent nor unknown, no failure", sum.Credits, sum.CreditsUnknown, sum.Failures, j.events)
	}
	if !hasEvent(j, state.EventEnrichPending, "enrich.all") || !hasEvent(j, state.EventEnrichVoid, "enrich.all") {
		t.Errorf("journal %v: want the pending enrichment noted, then voided", j.events)
	}
	if led.held.Credits != 0 {
		t.Errorf("the ledger holds %d credits after the run, want 0: the call never sent gives its credit back", led.held.Credits)
	}
}

// answerThenPanic is fakeService whose first enrichment, answered, makes
// the run's clock panic at its next reading: the worker's, right after it
// built the event from the answer (a bug once the answer was read). The
// call waits until the run has announced it (started), so that no other
// reading of the clock comes first.
type answerThenPanic struct {
	*fakeService
	started chan engine.Call
	armed   *atomic.Bool
	once    *sync.Once
}

func (a answerThenPanic) Enrich(ctx context.Context, req api.PageRequest) (*person.EnrichedProfile, error) {
	res, err := a.fakeService.Enrich(ctx, req)
	a.once.Do(func() {
		<-a.started
		a.armed.Store(true)
	})
	return res, err
}

// clock is t0, panicking once when armed.
func (a answerThenPanic) clock() time.Time {
	if a.armed.CompareAndSwap(true, false) {
		panic("a bug in the clock")
	}
	return t0
}

// enrichStarts sends the enrichments the run announces to started.
type enrichStarts struct {
	engine.NopProgress
	started chan engine.Call
}

func (p enrichStarts) CallStart(c engine.Call) {
	if c.Kind == kind.Enrich {
		p.started <- c
	}
}

// TestAnAnswerReadBeforeAWorkersPanicIsRecorded: a worker that panics
// after its enrichment was answered and the event built records the
// enrichment like any (a paid answer is kept), its credit spent, none of
// unknown outcome, and no later call starts.
func TestAnAnswerReadBeforeAWorkersPanicIsRecorded(t *testing.T) {
	svc := answerThenPanic{newFake(), make(chan engine.Call, 100), &atomic.Bool{}, &sync.Once{}}
	sum, j := runPanickingWith(t, svc, func(o *engine.Options) {
		o.Now, o.Progress = svc.clock, enrichStarts{started: svc.started}
	})
	if n := svc.count("enrich:"); n != 1 || sum.Calls != svc.count("") {
		t.Errorf("the service saw %d enrichments (%v), the summary %d calls; want one, and the calls the service saw", n, svc.calls, sum.Calls)
	}
	if sum.Credits != 1 || sum.CreditsUnknown != 0 || len(sum.Failures) != 0 || !hasEvent(j, state.EventEnrich, "enrich.all") || hasEvent(j, state.EventEnrichUnknown, "enrich.all") {
		t.Errorf("%d credits, %d unknown, failures %v, journal %v; want the enrichment recorded, its credit spent", sum.Credits, sum.CreditsUnknown, sum.Failures, j.events)
	}
}
