package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// pacedFake holds every enrichment back before it is sent, as the rate
// limit does, until a token arrives on release.
type pacedFake struct {
	*fakeService
	release chan struct{}
	sentCh  chan struct{}
	entered chan struct{} // one per enrichment that began to wait
}

func (p *pacedFake) Enrich(ctx context.Context, req api.PageRequest) (*person.EnrichedProfile, error) {
	p.entered <- struct{}{}
	select {
	case <-p.release:
	case <-ctx.Done():
		return nil, &api.Error{Op: "enrich", Kind: api.KindNotSent, Message: "the run is stopping"}
	}
	res, err := p.fakeService.Enrich(ctx, req)
	p.sentCh <- struct{}{}
	return res, err
}

// TestPendingNotedOnlyWhenSent: an enrichment is noted pending in the
// journal when it leaves the wait for the rate limit, not when a worker
// picks it up. Stopped after two of eleven were sent, the journal holds two
// pending notes, not one per worker waiting (which a kill then counted as
// "may have been charged").
func TestPendingNotedOnlyWhenSent(t *testing.T) {
	cfg := load(t, basic)
	cfg.API.Parallelism = 8
	st := state.New()
	p := build(t, cfg, st)
	svc := &pacedFake{fakeService: newFake(), release: make(chan struct{}), sentCh: make(chan struct{}, 16), entered: make(chan struct{}, 16)}
	j := &memJournal{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for range 2 {
			svc.release <- struct{}{}
			<-svc.sentCh
		}
		// Two more workers are waiting for the rate limit: stop now.
		for range 4 {
			<-svc.entered
		}
		cancel()
	}()
	_, _ = engine.Run(ctx, engine.Options{Config: cfg, Plan: p, State: st, Journal: j, Service: svc, Now: func() time.Time { return t0 }})
	pending := 0
	for _, e := range j.events {
		if e.Kind == state.EventEnrichPending {
			pending++
		}
	}
	if got := svc.count("enrich:"); got != 2 || pending != 2 {
		t.Errorf("%d enrichments sent, %d noted pending in the journal; want 2 and 2", got, pending)
	}
	if n := len(st.UnknownEnrichments); n != 0 {
		t.Errorf("%d enrichments of unknown outcome after a stop: %v", n, st.UnknownEnrichments)
	}
}
