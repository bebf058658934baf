package engine_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// keptIn is what a journal returns for an event it could not write where
// the state lives and kept elsewhere (run's rescue layer).
type keptIn struct{ path string }

func (k keptIn) Error() string  { return "disk full (kept in " + k.path + ")" }
func (k keptIn) KeptIn() string { return k.path }

// rescueJournal writes the first `writes` events, then keeps every other
// result in its "rescue file" (kept), refusing pending notes, as run's
// layer does; with lose set, it keeps nothing either.
type rescueJournal struct {
	mu       sync.Mutex
	writes   int
	lose     bool
	recorded []state.Event
	kept     []state.Event
}

func (j *rescueJournal) Append(e *state.Event) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.recorded) < j.writes {
		j.recorded = append(j.recorded, *e)
		return nil
	}
	if e.Kind == state.EventEnrichPending {
		return errors.New("disk full: no call is sent")
	}
	if j.lose {
		return errors.New("disk full, and the rescue file cannot be written either")
	}
	j.kept = append(j.kept, *e)
	return keptIn{"/cache/leadsync/rescue/k.run.rescue"}
}

// answerProgress records the answers shown as neither recorded nor kept.
type answerProgress struct {
	stopProgress
	answers []*state.Event
}

func (p *answerProgress) Unrecorded(c engine.Call, ev *state.Event, err error) {
	p.answers = append(p.answers, ev)
}

// TestResultKeptElsewhereCountsAsDone: the state cannot be written when
// an enrichment comes back; its journal keeps it elsewhere. It counts as
// succeeded and charged, is in the state (the pending note settled, no
// unknown outcome), the run stops at once and starts no other call, and
// the summary names the file; nothing is unrecorded.
func TestResultKeptElsewhereCountsAsDone(t *testing.T) {
	cfg := load(t, basic)
	cfg.API.Parallelism = 1
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	// Two searches and the profile read are written, then the first
	// enrichment's pending note; its result is kept.
	j := &rescueJournal{writes: 4}
	prog := &stopProgress{}
	sum, err := engine.Run(context.Background(), engine.Options{Config: cfg, Plan: p, State: st, Journal: j, Service: svc,
		Now: func() time.Time { return t0 }, Progress: prog})
	if err != nil {
		t.Fatalf("err = %v, want none: a result kept is recorded", err)
	}
	callsAddUp(t, sum)
	if sum.Calls != 4 || svc.count("enrich:") != 1 {
		t.Fatalf("%d calls, %d enrichments sent; want 4 and 1: nothing starts after a result is kept", sum.Calls, svc.count("enrich:"))
	}
	if len(j.kept) != 1 || j.kept[0].Kind != state.EventEnrich {
		t.Fatalf("kept %+v, want the enrichment", j.kept)
	}
	if sum.Credits != 1 || sum.Enriched != 1 || sum.CreditsUnknown != 0 || len(sum.Kept) != 1 || sum.Kept[0].Kind != kind.Enrich {
		t.Errorf("credits %d, enriched %d, unknown %d, kept %+v; want the enrichment kept and charged", sum.Credits, sum.Enriched, sum.CreditsUnknown, sum.Kept)
	}
	if sum.KeptIn != "/cache/leadsync/rescue/k.run.rescue" || !strings.Contains(sum.Stopped, sum.KeptIn) {
		t.Errorf("kept in %q, stopped %q: want the file named", sum.KeptIn, sum.Stopped)
	}
	if len(sum.Unrecorded()) != 0 {
		t.Errorf("unrecorded %+v: a kept result is not lost", sum.Unrecorded())
	}
	page := j.kept[0].Enrich.Result.PageName
	var enriched *state.Person
	for _, pp := range st.People {
		if pp.Lead.PageName == page {
			enriched = pp
		}
	}
	if enriched == nil || enriched.Enrichment == nil || st.Usage.CreditsSpent != 1 || st.Usage.CreditsUnknown != 0 || len(st.UnknownEnrichments) != 0 {
		t.Errorf("state: %+v, %d spent, %d unknown: want the enrichment folded in and its pending note settled", enriched, st.Usage.CreditsSpent, st.Usage.CreditsUnknown)
	}
}

// TestAnswerNeitherRecordedNorKeptIsShown: when even the rescue file
// cannot be written, the answer goes with the failure and is shown at
// once (AnswerProgress); the enrichment is charged all the same.
func TestAnswerNeitherRecordedNorKeptIsShown(t *testing.T) {
	cfg := load(t, basic)
	cfg.API.Parallelism = 1
	st := state.New()
	p := build(t, cfg, st)
	j := &rescueJournal{writes: 4, lose: true}
	prog := &answerProgress{}
	sum, err := engine.Run(context.Background(), engine.Options{Config: cfg, Plan: p, State: st, Journal: j, Service: newFake(),
		Now: func() time.Time { return t0 }, Progress: prog})
	if !errors.Is(err, engine.ErrJournal) {
		t.Fatalf("err = %v, want ErrJournal", err)
	}
	lost := sum.Unrecorded()
	if len(lost) != 1 || lost[0].Answer == nil || lost[0].Answer.Enrich == nil || lost[0].Answer.Enrich.Result.Email == "" {
		t.Fatalf("unrecorded %+v: want the enrichment with its answer", lost)
	}
	if len(prog.answers) != 1 || prog.answers[0] != lost[0].Answer {
		t.Errorf("answers shown %+v, want the one lost", prog.answers)
	}
	if sum.Credits != 1 || len(sum.Kept) != 0 {
		t.Errorf("credits %d, kept %+v; want 1 charged, nothing kept", sum.Credits, sum.Kept)
	}
}

// blockingJournal holds the append of search alpha's result until
// released, and says when it is held.
type blockingJournal struct {
	memJournal
	mu      sync.Mutex
	held    chan struct{}
	release chan struct{}
}

func (j *blockingJournal) Append(e *state.Event) error {
	if e.Kind == state.EventSearch && e.Address == "search.a" {
		close(j.held)
		<-j.release
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.memJournal.Append(e)
}

// eagerService lets search beta try to start only once alpha's result is
// being written, and says when beta was sent.
type eagerService struct {
	*fakeService
	held chan struct{}
	sent chan struct{}
}

func (s *eagerService) Search(ctx context.Context, gen api.Generation, req api.SearchRequest) (*api.SearchResult, error) {
	if kw, _ := req.Params["keywords"].(string); kw == "beta" {
		<-s.held
		if err := api.Started(ctx); err != nil {
			return nil, err
		}
		close(s.sent)
		return &api.SearchResult{}, nil
	}
	return s.fakeService.Search(ctx, gen, req)
}

// TestNoCallStartsWhileAResultIsWritten: while a result is being written
// (a journal that tries a failed write again for a while), a call that
// has left the pacer waits: it is sent only once the write is done.
func TestNoCallStartsWhileAResultIsWritten(t *testing.T) {
	cfg := load(t, basic)
	cfg.API.Parallelism = 2
	st := state.New()
	p := build(t, cfg, st)
	j := &blockingJournal{held: make(chan struct{}), release: make(chan struct{})}
	svc := &eagerService{fakeService: newFake(), held: j.held, sent: make(chan struct{})}
	done := make(chan error)
	go func() {
		_, err := engine.Run(context.Background(), engine.Options{Config: cfg, Plan: p, State: st, Journal: j, Service: svc,
			Now: func() time.Time { return t0 }})
		done <- err
	}()
	<-j.held
	// Give beta every chance to be sent, were it not held back.
	for range 1000 {
		runtime.Gosched()
	}
	select {
	case <-svc.sent:
		t.Fatal("search beta was sent while alpha's result was being written")
	default:
	}
	close(j.release)
	<-svc.sent
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestRecordedAnywayStopsTheRun: a journal that records a result but
// cannot go on (pg's lost lock) has it in the state: it is a success, and
// the run stops with the journal's reason.
func TestRecordedAnywayStopsTheRun(t *testing.T) {
	cfg := load(t, basic)
	cfg.API.Parallelism = 1
	st := state.New()
	p := build(t, cfg, st)
	j := &lostLockJournal{}
	sum, err := engine.Run(context.Background(), engine.Options{Config: cfg, Plan: p, State: st, Journal: j, Service: newFake(),
		Now: func() time.Time { return t0 }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Calls != 1 || sum.Succeeded != 1 || st.Searches["search.a"] == nil || !strings.Contains(sum.Stopped, "lock was lost") || sum.KeptIn != "" {
		t.Errorf("calls %d, succeeded %d, stopped %q, kept in %q, state %v", sum.Calls, sum.Succeeded, sum.Stopped, sum.KeptIn, st.Searches)
	}
}

type lostLock struct{}

func (lostLock) Error() string  { return "this run's lock was lost; the last call is recorded" }
func (lostLock) Recorded() bool { return true }

type lostLockJournal struct{ n int }

func (j *lostLockJournal) Append(e *state.Event) error {
	if j.n++; j.n == 1 {
		return fmt.Errorf("PostgreSQL: %w", lostLock{})
	}
	return errors.New("closed")
}
