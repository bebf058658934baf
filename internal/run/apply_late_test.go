package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/plan"
)

// callOrder is a Service that notes the kind of each track read ("page")
// and enrichment ("enrich") in the order they are sent.
type callOrder struct {
	api.Service
	noted
}

func (c *callOrder) Page(ctx context.Context, g api.Generation, r api.PageRequest) (*person.Profile, error) {
	c.note("page")
	return c.Service.Page(ctx, g, r)
}

func (c *callOrder) Enrich(ctx context.Context, r api.PageRequest) (*person.EnrichedProfile, error) {
	c.note("enrich")
	return c.Service.Enrich(ctx, r)
}

// TestApplyBesideATrackReadsTheStaleLate applies, over a partial state,
// an enrich block with refresh_on whose enrichments are all stale beside
// a track of its people (limits of 2 and 6). The plan made over their
// sketches and shown is the whole state's. The engine reads them whole
// only at the block's first pass, after the track's reads. It enriches
// each of them once, after the last read, and the track reads each.
func TestApplyBesideATrackReadsTheStaleLate(t *testing.T) {
	for _, limit := range []int{2, 6} {
		dir := t.TempDir()
		src := strings.Replace(enrichConfig(limit), "  refresh = ", "  refresh_on = [\"company\"]\n  refresh = ", 1) +
			"track \"watch\" {\n  from  = [enrich.contacts]\n  every = \"30d\"\n}\n"
		d, rec, whole := appliedIn(t, dir, src)
		stale := enrichedAt(whole, "enrich.contacts", t0)
		now := t0.Add(31 * 24 * time.Hour)
		d.Now = func() time.Time { return now }
		svc, err := d.Service()
		if err != nil {
			t.Fatal(err)
		}
		order := &callOrder{Service: svc}
		d.Service = func() (api.Service, error) { return order, nil }
		cfg := loadConfigText(t, dir, src)
		want, _ := plan.Build(cfg, whole, plan.Options{Now: now})
		rec.ops = nil
		v := &planView{}
		if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, v); err != nil {
			t.Fatal(err)
		}
		if slices.Contains(rec.ops, "load") {
			t.Errorf("limit %d: the whole state loaded (%v)", limit, rec.ops)
		}
		if v.shown == nil {
			t.Fatalf("limit %d: no plan shown", limit)
		}
		if diff := cmp.Diff(jsonOf(t, want.Changes), jsonOf(t, v.shown.Changes)); diff != "" {
			t.Errorf("limit %d: the plan shown differs from the plan of the whole state (-whole +applied):\n%s", limit, diff)
		}
		after, err := rec.Backend.Load()
		if err != nil {
			t.Fatal(err)
		}
		enriched, tracked := enrichedAt(after, "enrich.contacts", now), trackedAt(after, "track.watch", now)
		if stale == 0 || enriched != stale || tracked != stale {
			t.Errorf("limit %d: %d enriched again and %d read by the track, of %d stale", limit, enriched, tracked, stale)
		}
		pages, enrichments := slices.Index(order.ops, "page"), slices.Index(order.ops, "enrich")
		if n := len(order.ops); n != enriched+tracked || enrichments < 0 || pages > enrichments || slices.Contains(order.ops[enrichments:], "page") {
			t.Errorf("limit %d: the calls %v, want %d reads then %d enrichments", limit, order.ops, tracked, enriched)
		}
	}
}

// summaryOf is a Progress that keeps the run's summary.
type summaryOf struct {
	engine.NopProgress
	sum *engine.Summary
}

func (p *summaryOf) Summary(s *engine.Summary) { p.sum = s }

// TestACutShortApplyCountsThePeopleInSketch applies, over a partial
// state, an enrich block with refresh_on whose enrichments are all stale.
// Once the plan is made, max_credits drops to 0: the engine's own cap,
// which a plan of the same configuration never passes. No block makes a
// pass, so the stop reason reads the people in sketch whole first
// (fillWhole) and counts every stale one.
func TestACutShortApplyCountsThePeopleInSketch(t *testing.T) {
	dir := t.TempDir()
	src := strings.Replace(enrichConfig(6), "  refresh = ", "  refresh_on = [\"company\"]\n  refresh = ", 1)
	d, rec, whole := appliedIn(t, dir, src)
	stale := enrichedAt(whole, "enrich.contacts", t0)
	now := t0.Add(31 * 24 * time.Hour)
	d.Now = func() time.Time { return now }
	cfg := loadConfigText(t, dir, src)
	cut := func() (bool, error) { cfg.API.MaxCredits = 0; return true, nil }
	rec.ops = nil
	progress := &summaryOf{}
	v := &planView{recView: recView{progress: progress}}
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, Confirm: cut}, v); !errors.Is(err, ErrFailed) {
		t.Fatalf("the apply cut short: %v, want %v", err, ErrFailed)
	}
	if slices.Contains(rec.ops, "load") {
		t.Errorf("the whole state loaded (%v)", rec.ops)
	}
	want := fmt.Sprintf("with %d more people to enrich", stale)
	if stale < 2 || progress.sum == nil || !strings.Contains(progress.sum.Stopped, want) {
		t.Fatalf("the run stopped with %+v, want %q", progress.sum, want)
	}
}
