package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
)

func (r *runner) push(t task) { r.queue = append(r.queue, t) }

func (r *runner) loop(ctx context.Context, par int) error {
	done := make(chan outcome)
	stop := r.opts.Stop
	r.releaseEnrich(false)
	for {
		// A stop that arrived with a result must win over dispatching.
		select {
		case <-stop:
			stop = nil
			r.halt(reasonInterrupted)
		default:
		}
		r.dispatch(ctx, par, done)
		if r.inflight == 0 {
			if r.stopped {
				break
			}
			if len(r.queue) == 0 {
				// Every call has its outcome: the enrich blocks' next
				// round, if the results gave any of them more people.
				r.releaseEnrich(true)
				if len(r.queue) > 0 {
					continue
				}
				if len(r.waiting) == 0 {
					break
				}
				// Only people another workspace's apply holds are left:
				// wait for the poll.
			}
		}
		select {
		case c := <-r.sent:
			r.announce(c)
		case w := <-r.waits:
			r.drainSent()
			r.showWait(w)
		case o := <-done:
			r.inflight--
			r.landed(o)
			r.drainSent()
			r.drainWaits()
			r.noteAbandoned(ctx, o)
			r.handle(o)
			r.releaseEnrich(false)
		case <-r.pollClaims():
			r.requeueWaiting()
		case <-stop:
			stop = nil
			r.halt(reasonInterrupted)
		case <-ctx.Done():
			return r.abort(ctx, done)
		}
	}
	return recovered.First(r.bug, r.fatal)
}

// dispatch starts the calls at the head of the queue, up to par in
// flight, each once it is not excluded, claimed across the workspaces and
// reserved in the budget; their outcomes come on done.
func (r *runner) dispatch(ctx context.Context, par int, done chan<- outcome) {
	for !r.stopped && r.inflight < par && len(r.queue) > 0 {
		if r.callsBudget <= 0 {
			// Cannot happen when the plan's bounds hold; if it ever did,
			// stopping is the only safe answer.
			r.halt("the plan's bound of " + textfmt.Plural(r.sum.CallsPlannedMax, "call") + " is reached")
			return
		}
		if r.queue[0].unread.Len() > 0 {
			r.readTrackHead()
			continue
		}
		if r.excludedNow(r.queue[0]) {
			r.queue = r.queue[1:]
			continue
		}
		if !r.claimHead() {
			continue // waiting for another workspace's apply, copied, or the run stopped
		}
		if !r.reserve(r.queue[0]) {
			r.unclaim(r.queue[0], false)
			r.queue[0].claimed = false
			return
		}
		r.callsBudget--
		t := r.queue[0]
		r.queue = r.queue[1:]
		r.seq++
		t.call.Seq = r.seq
		r.inflight++
		go r.work(ctx, t, done)
	}
}

// abort ends a run whose ctx was canceled: the calls in flight are
// aborted through ctx; it waits for them so that whatever completed is
// recorded, and names those whose answer never came: they may have been
// charged.
func (r *runner) abort(ctx context.Context, done <-chan outcome) error {
	r.halt("aborted")
	for r.inflight > 0 {
		o := <-done
		r.inflight--
		r.landed(o)
		r.drainSent()
		r.noteAbandoned(ctx, o)
		r.handle(o)
	}
	sort.Slice(r.sum.Abandoned, func(i, j int) bool { return r.sum.Abandoned[i].Seq < r.sum.Abandoned[j].Seq })
	return recovered.First(r.bug, ctx.Err())
}

// noteAbandoned lists o among the calls abandoned when the run was aborted
// (ctx cancelled) while it was sent and had no answer.
func (r *runner) noteAbandoned(ctx context.Context, o outcome) {
	if ctx.Err() != nil && o.sent && o.err != nil {
		r.sum.Abandoned = append(r.sum.Abandoned, o.task.call)
	}
}

// reasonInterrupted is why a run stops at the first interrupt.
const reasonInterrupted = "interrupted: no new calls were started"

// announce counts a call as made and reports its start, once.
func (r *runner) announce(c Call) {
	if r.announced[c.Seq] {
		return
	}
	r.announced[c.Seq] = true
	r.sum.Calls++
	r.progress.CallStart(c)
}

// drainSent announces the calls reported sent so far; a worker reports its
// call sent before its outcome, so this keeps starts before their ends.
func (r *runner) drainSent() {
	for {
		select {
		case c := <-r.sent:
			r.announce(c)
		default:
			return
		}
	}
}

// landed notes that the outcome of o, in flight if it was sent, is being
// handled.
func (r *runner) landed(o outcome) {
	if o.sent {
		r.mu.Lock()
		r.flying--
		r.mu.Unlock()
	}
}

// halt stops starting calls, says why, and says what the run still waits
// for: the calls in flight, which finish and are recorded.
func (r *runner) halt(reason string) {
	if r.stopped {
		return
	}
	r.stopped = true
	r.halting.Store(true)
	r.mu.Lock()
	r.closed = true
	// No call starts once closed: those sent and not answered are all
	// that is waited for (the others, waiting for the rate limit or a
	// claim, are not sent).
	flying := r.flying
	r.mu.Unlock()
	close(r.gate)
	// The calls it waits for were sent before it stopped: shown first.
	r.drainSent()
	r.sum.Stopped = reason
	r.sum.StoppedInFlight = flying
	if flying == 0 {
		r.progress.Stopping(reason + "; no call is in flight")
		return
	}
	r.progress.Stopping(fmt.Sprintf("%s; waiting for %s in flight", reason, textfmt.Plural(flying, "call")))
}

// do makes o's call, filling in o; it runs in its own goroutine (work)
// and touches no runner state but the read-only task.
func (r *runner) do(ctx context.Context, o *outcome) {
	t := o.task
	// The duration is the service's: from when the call left the pacer
	// (its first attempt), not from when it was queued.
	start := r.now()
	ctx = api.WithSendGate(ctx, r.gate)
	ctx = api.WithWaitHook(ctx, func(d time.Duration, reason string) { r.reportWait(t.call, d, reason) })
	ctx = api.WithStartHook(ctx, func() error {
		if o.sent {
			return nil
		}
		if err := r.starting(t, o); err != nil {
			return err // not sent
		}
		start, o.sent = r.now(), true
		return nil
	})
	gen := r.opts.Config.API.Generation
	switch t.call.Kind {
	case kind.Search:
		req := t.search.Request
		if t.split != nil {
			req = nodeRequest(t.split, t.path)
		}
		body, err := json.Marshal(req)
		if err != nil {
			o.err = err
			break
		}
		res, err := r.opts.Service.Search(ctx, gen, req)
		o.answered = err == nil
		if err != nil {
			o.err = err
			break
		}
		if t.split != nil {
			o.event = splitEvent(t.split, gen, t.path, body, res)
			break
		}
		o.event = &state.Event{Kind: state.EventSearch, Address: t.call.Address, Search: &state.SearchEvent{
			Generation: gen, Request: body, RequestHash: state.RequestHash(gen, body),
			Leads: res.Leads, Raw: res.Raw, MaxResults: t.search.MaxResults,
		}}
	case kind.Profile:
		body, err := json.Marshal(t.page)
		if err != nil {
			o.err = err
			break
		}
		p, err := r.opts.Service.Page(ctx, gen, t.page)
		o.answered = err == nil
		if err != nil {
			o.err = err
			break
		}
		o.event = &state.Event{Kind: state.EventProfile, Address: t.call.Address, Profile: &state.ProfileEvent{
			Generation: gen, Request: body, RequestHash: state.RequestHash(gen, body),
			PageName: t.profile.PageName, Profile: *p,
		}}
	case kind.Track:
		o.event, o.err = r.readTrack(ctx, t)
	case kind.Enrich:
		// The start hook records the pending enrichment as it is sent.
		res, err := r.opts.Service.Enrich(ctx, t.page)
		o.answered = err == nil
		if err == nil {
			err = api.CheckEnrichedPerson(res, t.networkID)
		}
		if err != nil {
			o.err = err
			break
		}
		o.event = &state.Event{Kind: state.EventEnrich, Address: t.call.Address, Enrich: &state.EnrichEvent{
			PersonID: t.call.Person, Credits: r.cpe, Result: *res,
		}}
	}
	o.duration = r.now().Sub(start)
}

// work makes t's call (do) on a goroutine of its own and sends its
// outcome on done. A panic of the call (a bug) is the outcome's error, a
// *recovered.Panic: the run stops as on a journal's failure (panicked),
// and the answers already received are recorded first.
func (r *runner) work(ctx context.Context, t task, done chan<- outcome) {
	o := &outcome{task: t}
	defer func() { done <- *o }()
	defer recovered.Catch(&o.err)
	r.do(ctx, o)
}

// notMade reports whether err means the call never reached the service
// because the run is stopping.
func notMade(err error) bool {
	var le *errLedger
	if errors.As(err, &le) {
		return true // refused by the start hook: never sent
	}
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae.Kind == api.KindNotSent || ae.Kind == api.KindCanceled
	}
	return errors.Is(err, context.Canceled)
}

// excludedNow reports whether t is an enrichment of a person whom an
// exclude block names now, by what the run learned since they were chosen
// (a colleague's enrichment gave their company's domain, which a block by
// domain lists): the call is not made, its place and credits go back, and
// the person counts as excluded. Checked before each paid call.
func (r *runner) excludedNow(t task) bool {
	if t.call.Kind != kind.Enrich {
		return false
	}
	r.mu.Lock()
	excluded := r.cands.ExcludedNow(r.st, r.st.Person(t.call.Person), r.planTime())
	r.mu.Unlock()
	if !excluded {
		return false
	}
	r.pending[t.call.Address]--
	r.creditsBudget += r.cpe
	delete(r.claimed, t.call.Person)
	for _, b := range r.enrichBlocks {
		if b.cfg.Address == t.call.Address {
			b.budget++
		}
	}
	return true
}

// releaseEnrich queues the enrichments whose people are known, as soon as
// they are known: for each enrich block, the candidates of
// plan.Candidates.Claimed over the sources that have completed in this
// run (or had nothing to run), up to the block's and the run's budget. A
// person claimed by another block in this run is not enriched twice and
// takes none of this block's places, so the block goes on to its next
// people.
//
// While sources are still running it recomputes only when the queue runs
// low, so that the cost stays small for thousands of searches; once every
// source of a block is done it makes a full pass. idle is true when every
// call has its outcome: then each block whose people may have changed since
// its last pass (a result recorded since: a lead updated, a place given
// back by another block's enrichment) makes one more: the rounds the plan
// counts. The run ends when a round finds nobody, so that the next plan has
// nothing left to enrich.
func (r *runner) releaseEnrich(idle bool) {
	if r.stopped {
		return
	}
	lowQueue := len(r.queue) < 2*r.par
	for _, b := range r.enrichBlocks {
		if b.broken || (b.budget <= 0 || r.creditsBudget < r.cpe) && r.opts.Reuse == nil {
			continue
		}
		grew := false
		for a := range b.deps {
			if r.pending[a] <= 0 {
				delete(b.deps, a)
				grew = true
			}
		}
		final := len(b.deps) == 0
		if !final && r.waitsForTrack(b) {
			continue // its calls would queue behind the track's reads
		}
		switch {
		case !b.tried:
		case final && !b.final:
		case final && idle && b.seen != r.changes:
		case !final && grew && lowQueue:
		default:
			continue
		}
		if !r.fillWhole() {
			return
		}
		b.tried = true
		e := b.cfg
		if !final {
			// Only the sources whose results are in, and of them only
			// those before the first still running: people are enriched
			// in from order.
			part := *b.cfg
			part.From = plan.ReadySources(r.opts.Config, b.cfg, func(a string) bool { return !b.deps[a] })
			if len(part.From) == 0 {
				continue
			}
			e = &part
		}
		b.final = final
		b.seen = r.changes
		if err := r.reuse(e); err != nil {
			b.broken = true
			r.fail(task{call: Call{Kind: kind.Enrich, Address: b.cfg.Address}}, err, true)
			continue
		}
		if r.stopped {
			return // a copy could not be recorded
		}
		if b.budget <= 0 || r.creditsBudget < r.cpe {
			continue
		}
		r.queueEnrich(b, e)
	}
}

// waitsForTrack reports whether b waits for the reads of a track of the
// run (refresh_on: enrichDeps). It makes no pass before they are in:
// the calls it queued would wait behind theirs, and the people it
// chooses from are read whole only at its first pass (fillWhole).
func (r *runner) waitsForTrack(b *enrichBlock) bool {
	for a := range b.deps {
		if r.opts.Config.Track(a) != nil {
			return true
		}
	}
	return false
}

// fillWhole reads whole, once, the people the plan read in sketch and the
// apply let go (plan.EnrichFacts.FillWhole), before the enrich blocks
// first choose people or the run counts those left: a block may enrich
// them. A failed read stops the run with it as the run's error: no
// enrichment was chosen yet. It reports whether the people are read.
func (r *runner) fillWhole() bool {
	if r.filled {
		return true
	}
	r.mu.Lock()
	err := r.opts.Enrich.FillWhole(r.st)
	r.filled = err == nil
	r.mu.Unlock()
	if err != nil {
		r.fatal = fmt.Errorf("reading the people of the stale enrichments: %w", err)
		r.halt(r.fatal.Error())
	}
	return err == nil
}

// queueEnrich queues the enrichments of block b among the people e (b's
// block, or the part of it whose sources are in) selects now, within b's
// budget and the run's credits; a person another block took is left.
func (r *runner) queueEnrich(b *enrichBlock, e *config.Enrich) {
	r.mu.Lock()
	todo, err := r.cands.Claimed(r.st, e, r.planTime(), r.claimed)
	r.mu.Unlock()
	if err != nil {
		b.broken = true
		r.fail(task{call: Call{Kind: kind.Enrich, Address: b.cfg.Address}}, err, true)
		return
	}
	for _, id := range todo {
		if b.budget <= 0 || r.creditsBudget < r.cpe {
			return
		}
		if _, ok := r.claimed[id]; ok {
			continue
		}
		p := r.st.People[id]
		if p == nil || p.Lead.PageName == "" {
			continue
		}
		r.claimed[id] = b.cfg.Address
		b.budget--
		r.creditsBudget -= r.cpe
		r.push(task{
			call:      Call{Kind: kind.Enrich, Address: b.cfg.Address, Person: id, Page: p.Lead.PageName, Label: p.Lead.FullName},
			enrich:    b.cfg,
			page:      api.PageRequest{PageName: p.Lead.PageName},
			networkID: p.Lead.NetworkID,
		})
		r.pending[b.cfg.Address]++
	}
}
