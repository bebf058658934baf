package engine_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// stopProgress records the reasons the run gave when it stopped.
type stopProgress struct {
	engine.NopProgress
	stops []string
}

func (p *stopProgress) Stopping(reason string) { p.stops = append(p.stops, reason) }

// callsAddUp fails the test unless the calls made are those that
// succeeded plus those that failed: a failure that was no call (nothing
// sent) is not counted among the failed calls.
func callsAddUp(t *testing.T, sum *engine.Summary) {
	t.Helper()
	if sum.Calls != sum.Succeeded+sum.CallsFailed() {
		t.Errorf("%d calls made, %d succeeded, %d failed: they do not add up (failures %+v)", sum.Calls, sum.Succeeded, sum.CallsFailed(), sum.Failures)
	}
	for _, f := range sum.Failures {
		if strings.Contains(f.Err.Error(), "not sent: not sent") {
			t.Errorf("a failure says it twice: %v", f.Err)
		}
	}
}

// TestJournalFailureBeforeAnEnrichmentIsNoFailedCall: the journal fails
// when the pending note of an enrichment is written, before the call is
// sent. That enrichment was not made: it is not a failed call (the sums
// "3 calls made, 3 succeeded, 1 failed" did not add up), and the stop
// says it was not sent, once.
func TestJournalFailureBeforeAnEnrichmentIsNoFailedCall(t *testing.T) {
	cfg := load(t, basic)
	cfg.API.Parallelism = 1
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	// The two searches and the profile read are recorded; the fourth
	// append is the first enrichment's pending note.
	j := &memJournal{failAfter: 3}
	prog := &stopProgress{}
	sum, err := engine.Run(context.Background(), engine.Options{Config: cfg, Plan: p, State: st, Journal: j, Service: svc,
		Now: func() time.Time { return t0 }, Progress: prog})
	if !errors.Is(err, engine.ErrJournal) {
		t.Fatalf("err = %v, want ErrJournal", err)
	}
	if sum.Calls != 3 || svc.count("enrich:") != 0 {
		t.Fatalf("%d calls made, %d enrichments sent; want 3 and 0", sum.Calls, svc.count("enrich:"))
	}
	callsAddUp(t, sum)
	if !strings.Contains(sum.Stopped, "not sent") || strings.Contains(sum.Stopped, "not sent: not sent") {
		t.Errorf("stop reason %q: want it to say once that the enrichment was not sent", sum.Stopped)
	}
	if len(sum.Unrecorded()) != 0 {
		t.Errorf("nothing completed was lost, but the summary lists %v", sum.Unrecorded())
	}
}

// TestResultThatCannotBeRecordedIsNamed: a search that completed but
// whose result could not be written is named as such, so that the summary
// can say it will be made again (not "nothing completed is repeated").
func TestResultThatCannotBeRecordedIsNamed(t *testing.T) {
	cfg := load(t, basic)
	cfg.API.Parallelism = 1
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	j := &memJournal{failAfter: 1}
	sum, err := engine.Run(context.Background(), engine.Options{Config: cfg, Plan: p, State: st, Journal: j, Service: svc, Now: func() time.Time { return t0 }})
	if !errors.Is(err, engine.ErrJournal) {
		t.Fatalf("err = %v, want ErrJournal", err)
	}
	callsAddUp(t, sum)
	lost := sum.Unrecorded()
	if sum.Calls != 2 || len(lost) != 1 || lost[0].Kind != kind.Search || lost[0].Address != "search.b" {
		t.Errorf("%d calls, unrecorded %+v; want 2 calls, search.b completed but not recorded", sum.Calls, lost)
	}
}

// TestFirstStopSaysWhatItWaitsFor: when the run stops with calls in
// flight, it says it waits for them (how many), not that they were
// finished; the summary, once they are, says how many there were.
func TestFirstStopSaysWhatItWaitsFor(t *testing.T) {
	cfg := load(t, basic)
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	svc.block = make(chan struct{})
	svc.started = make(chan string, 100)
	stop := make(chan struct{})
	prog := &stopProgress{}
	done := make(chan *engine.Summary)
	go func() {
		sum, _ := engine.Run(context.Background(), engine.Options{Config: cfg, Plan: p, State: st, Journal: &memJournal{}, Service: svc,
			Now: func() time.Time { return t0 }, Stop: stop, Progress: prog})
		done <- sum
	}()
	for range 3 { // parallelism 3: both searches and the profile read
		<-svc.started
	}
	close(stop)
	close(svc.block)
	sum := <-done
	if len(prog.stops) != 1 || !strings.Contains(prog.stops[0], "waiting for 3 calls in flight") || strings.Contains(prog.stops[0], "finished") {
		t.Errorf("stop notices %q: want one saying it waits for the 3 calls in flight", prog.stops)
	}
	if sum.StoppedInFlight != 3 || sum.Calls != 3 {
		t.Errorf("summary: %d in flight at the stop, %d calls; want 3 and 3", sum.StoppedInFlight, sum.Calls)
	}
	callsAddUp(t, sum)
}

// stopNotices records the stop notices, and says on stopped when the
// first came.
type stopNotices struct {
	engine.NopProgress
	mu      sync.Mutex
	stops   []string
	stopped chan struct{}
}

func (p *stopNotices) Stopping(reason string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stops = append(p.stops, reason)
	if len(p.stops) == 1 {
		close(p.stopped)
	}
}

// TestStopCountsOnlyTheCallsSent: of the three calls dispatched
// (parallelism 3), one is sent and held in flight while the other two
// still wait for the rate limit. The stop waits for the one call in
// flight, and says so (before, it said 3: the calls dispatched); the two
// waiting are never sent. testdata/stop_in_flight.txt holds the notice and
// the summary's count.
func TestStopCountsOnlyTheCallsSent(t *testing.T) {
	cfg := load(t, basic)
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	svc.block = make(chan struct{})
	svc.started = make(chan string, 100)
	svc.paced = map[string]bool{"search:beta": true, "page:Max_Mustermann": true}
	svc.pacer = make(chan struct{})
	stop := make(chan struct{})
	prog := &stopNotices{stopped: make(chan struct{})}
	done := make(chan *engine.Summary)
	go func() {
		sum, _ := engine.Run(context.Background(), engine.Options{Config: cfg, Plan: p, State: st, Journal: &memJournal{}, Service: svc,
			Now: func() time.Time { return t0 }, Stop: stop, Progress: prog})
		done <- sum
	}()
	if got := <-svc.started; got != "search:alpha" {
		t.Fatalf("first call %q, want search:alpha", got)
	}
	close(stop)
	<-prog.stopped
	close(svc.pacer)
	close(svc.block)
	sum := <-done
	if n := len(svc.calls); n != 1 {
		t.Errorf("%d calls reached the service (%v); want the one sent before the stop", n, svc.calls)
	}
	var b strings.Builder
	for _, s := range prog.stops {
		fmt.Fprintf(&b, "stopping: %s\n", s)
	}
	fmt.Fprintf(&b, "summary: %s made, %d in flight at the stop\n", textfmt.Plural(sum.Calls, "call"), sum.StoppedInFlight)
	golden.Check(t, filepath.Join("testdata", "stop_in_flight.txt"), []byte(b.String()))
	callsAddUp(t, sum)
}

// TestAbortNamesTheCallsAbandoned: a cancelled run (the second Ctrl-C)
// lists the calls that were in flight, sent and never answered: they may
// have been charged.
func TestAbortNamesTheCallsAbandoned(t *testing.T) {
	cfg := load(t, basic)
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	svc.block = make(chan struct{})
	svc.started = make(chan string, 100)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *engine.Summary)
	go func() {
		sum, _ := engine.Run(ctx, engine.Options{Config: cfg, Plan: p, State: st, Journal: &memJournal{}, Service: svc, Now: func() time.Time { return t0 }})
		done <- sum
	}()
	for range 3 {
		<-svc.started
	}
	cancel()
	sum := <-done
	var names []string
	for _, c := range sum.Abandoned {
		names = append(names, c.Address)
	}
	if len(names) != 3 || !strings.Contains(strings.Join(names, " "), "search.a") || !strings.Contains(strings.Join(names, " "), "profile.p") {
		t.Errorf("abandoned %q, want the 3 calls in flight", names)
	}
	callsAddUp(t, sum)
}

// TestRunCutShortByABoundSaysSo: a plan whose credit bound is below what
// its people need (a saved plan edited by hand, which apply now refuses,
// or any future mismatch) enriches only what the bound allows, and the run
// says it stopped and why, never that it is complete.
func TestRunCutShortByABoundSaysSo(t *testing.T) {
	cfg := load(t, basic)
	cfg.API.Parallelism = 1
	st := state.New()
	p := build(t, cfg, st)
	p.Totals.CreditsMax = 1
	svc := newFake()
	sum := run(t, cfg, st, p, svc, &memJournal{}, nil)
	if n := svc.count("enrich:"); n != 1 {
		t.Fatalf("%d enrichments, want the 1 the bound allows", n)
	}
	if !strings.Contains(sum.Stopped, "bound") || !strings.Contains(sum.Stopped, "10 more people") {
		t.Errorf("stopped %q: want it to say the plan's bound cut the run short, with the 10 people left", sum.Stopped)
	}
	callsAddUp(t, sum)
}

// TestFirstRunCountsItsPeopleAsAdded: on its first run a search's added
// count is the people it kept (all are new to it), never 0, so that a
// script reading apply --json can trust it; the next run counts against
// the last.
func TestFirstRunCountsItsPeopleAsAdded(t *testing.T) {
	cfg := load(t, basic)
	st := state.New()
	sum := run(t, cfg, st, build(t, cfg, st), newFake(), &memJournal{}, nil)
	if len(sum.Searches) != 2 {
		t.Fatalf("searches %+v", sum.Searches)
	}
	for _, o := range sum.Searches {
		if !o.First || o.Added != o.Kept || o.Kept != 5 {
			t.Errorf("%s: first %v, added %d, kept %d; want a first run with its 5 people added", o.Address, o.First, o.Added, o.Kept)
		}
	}
}
