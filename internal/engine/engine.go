package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// Options is what a run needs. Config, Plan, State, Journal and Service are
// required.
type Options struct {
	Config  *config.Config
	Plan    *plan.Plan
	State   *state.State
	Journal Journal
	Service api.Service
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Stop, when closed, makes the run start no further call and finish the
	// ones in flight (the first Ctrl-C). Cancelling the context aborts the
	// calls in flight too (the second).
	Stop <-chan struct{}
	// Progress receives events; NopProgress when nil.
	Progress Progress
	// Budget, when set, is leadsync { budget }: each call is reserved in
	// the account's ledger before it starts.
	Budget *Budget
	// Reuse finds the enrichments other workspaces of the backend hold,
	// which apply copies instead of paying again; nil when they share
	// nothing.
	Reuse plan.ReuseLookup
	// Claims, when set, are the people the applies of the backend's
	// workspaces are paying for right now: each enrichment is claimed
	// before it is sent and released once its outcome is recorded. A
	// person another workspace's running apply holds is waited for, up to
	// ClaimWait, and copied once it is recorded there, or left for the
	// next apply; the claim is tried again every ClaimPoll. Both default
	// from the API settings (claims.go).
	Claims               Claims
	ClaimWait, ClaimPoll time.Duration
}

// Summary is the outcome of a run.
type Summary struct {
	CallsPlannedMax   int
	CreditsPlannedMax int
	Calls             int // calls started
	// Credits the service charged: enrichments that succeeded ×
	// credits_per_enrich. A failed call (a 500, a 403) charged nothing.
	Credits int
	// CreditsUnknown are the credits of enrichments whose outcome is
	// unknown (the answer was lost or unusable): they may have been
	// charged. Recorded in state (state.UnknownEnrichment).
	CreditsUnknown int
	Succeeded      int
	Failures       []Failure
	Searches       []SearchOutcome
	Profiles       []string // profile addresses read
	Enriched       int
	ByStatus       map[string]int // enrichments of this run by validation status
	Forgotten      []string
	// Moved are the moves recorded (moved blocks), before any call.
	Moved []state.Move
	// Updated are the addresses updated without a call (plan.Update): a
	// search's kept leads cut, a profile read shared.
	Updated []string
	// Expired is the number of people removed by retention.
	Expired int
	// Imported are the import blocks whose files were adopted.
	Imported []ImportOutcome
	// Reused counts, by workspace, the enrichments copied from other
	// workspaces of the backend: no call, no credit.
	Reused map[string]int
	// ClaimedElsewhere counts, by workspace, the people that workspace's
	// apply, running at the same moment, was enriching when this run came
	// to them: copied once it recorded them (counted in Reused too), or
	// left for the next apply.
	ClaimedElsewhere map[string]ClaimedCount
	// NotSpent is what the run did not pay for, and why, as people (each
	// would have cost credits_per_enrich): people the exclude blocks took
	// out of the enrich blocks' candidates, people an import of the run
	// gave an e-mail, enrichments copied from other workspaces.
	NotSpent NotSpent
	// BudgetStopped is set when a hard budget stopped the run;
	// BudgetPassed says when a soft one was passed.
	BudgetStopped bool
	BudgetPassed  string
	// Stopped is non-empty when the run stopped early, and says why.
	Stopped string
	// StoppedInFlight is the number of calls in flight when the run
	// stopped (sent and not answered; not those still waiting for the
	// rate limit, which are not sent): it waited for them (unless it was
	// aborted).
	StoppedInFlight int
	// Abandoned are the calls in flight when the run was aborted (the
	// second Ctrl-C): sent, never answered; they may have been charged.
	Abandoned []Call
	Duration  time.Duration
	// SplitsUnfinished are split searches whose run stopped before their
	// tree was complete (resumed by the next apply).
	SplitsUnfinished []SplitUnfinished
	// Tracked counts the track reads made (gone and private included).
	Tracked int
	// Drift is what the calls of the run saw change: job changes, people
	// who left the network or turned private, changes by field.
	Drift Drift
	// Kept are the calls whose results could not be written where the
	// state lives and were kept in the file KeptIn (a rescue file) for the
	// next command to fold in: they count as succeeded (an enrichment's
	// credits as charged), and nothing of them is called again. The run
	// stopped at the first.
	Kept   []Call
	KeptIn string
}

// Failure is a call that failed for good, or a problem of the run that
// was no call (NoCall).
type Failure struct {
	Address string
	Kind    kind.Kind
	Person  string // person ID of an enrich call
	Name    string // the person's name, for messages
	Err     error
	// NoCall is set when nothing was sent: the failure is the run's (a
	// where that cannot be evaluated, a bound reached, a read shared
	// with another that could not be recorded), not a call's.
	NoCall bool
	// Unrecorded is set when the call completed, its answer arrived, but
	// the result could not be recorded, nor kept anywhere: the next apply
	// makes it again. Answer is then what came back, for the user to keep
	// (it is printed on standard error).
	Unrecorded bool
	Answer     *state.Event
}

// SearchOutcome is the sync summary of one search run.
type SearchOutcome struct {
	Address string
	Results int  // as returned by the service
	Kept    int  // after max_results
	Added   int  // people new to this search since its last run; on its first run, all it kept
	Removed int  // people gone since its last run
	Capped  bool // exactly the network's cap: probably cut off (split: incomplete)
	// First is true when the search had never run before.
	First bool
	// Suppressed counts the results naming people erased with leadsync
	// forget: dropped, not kept.
	Suppressed int
	// Changed counts the people of this run whose title, company or
	// location it found changed since state last saw them.
	Changed int
	// Split is the completeness of a split search's run; nil otherwise.
	Split *state.SplitSummary
}

// Failed reports whether anything failed or the run stopped early.
func (s *Summary) Failed() bool { return len(s.Failures) > 0 || s.Stopped != "" }

// CallsFailed counts the failures that were calls: with Succeeded, they
// add up to Calls.
func (s *Summary) CallsFailed() int {
	n := 0
	for _, f := range s.Failures {
		if !f.NoCall {
			n++
		}
	}
	return n
}

// Unrecorded lists the calls that completed but whose results could not
// be recorded: the next apply makes them again.
func (s *Summary) Unrecorded() []Failure {
	var out []Failure
	for _, f := range s.Failures {
		if f.Unrecorded {
			out = append(out, f)
		}
	}
	return out
}

// ErrJournal wraps a failure to record a completed call. The run stops at
// once: nothing more is spent when results cannot be kept.
var ErrJournal = errors.New("cannot record a completed call")

type task struct {
	call    Call
	search  *config.Search
	profile *config.Profile
	enrich  *config.Enrich
	page    api.PageRequest
	// networkID is the known network ID of the person an enrich call is
	// for: an answer about anyone else is refused, never merged.
	networkID string
	// split and path are set for a sub-search of a split search (split.go).
	split *splitRun
	path  []string
	// claimKeys are the keys an enrichment claims its person by
	// (claims.go); claimed is set while this run holds the claim, and
	// waitSince is when it first found the person held by another
	// workspace's apply.
	claimKeys []string
	claimed   bool
	waitSince time.Time
}

type outcome struct {
	task     task
	pending  bool // an enrich_pending event was recorded before the call
	sent     bool // the call reached the service (its first attempt left the pacer)
	recorded bool // its result is recorded (handle sets it)
	event    *state.Event
	err      error
	duration time.Duration
}

// enrichBlock tracks one enrich change during a run.
type enrichBlock struct {
	cfg    *config.Enrich
	budget int             // calls this block may still start
	deps   map[string]bool // source instances with calls still pending in this run
	final  bool            // a pass with every source done was made
	tried  bool            // a pass was made at least once
	seen   int             // runner.changes at the last pass
	broken bool            // where could not be evaluated: no more passes
}

type runner struct {
	opts     Options
	now      func() time.Time
	progress Progress
	cpe      int // credits per enrich
	// softPassed is set when a reservation passed a soft budget
	// (finishBudget says by how much, at the end).
	softPassed bool
	// flying counts the calls sent whose outcome is not handled yet
	// (under mu): the calls in flight a stop waits for. inflight counts
	// the calls dispatched, some of which still wait for the rate limit.
	flying int
	// owed is what the ledger could not take back of sent calls that
	// certainly failed (owedErr why): tried again at the next release and
	// at the end.
	owed    plan.Spending
	owedErr error

	mu sync.Mutex // guards state mutation (Fold) against concurrent readers, and closed
	// closed is set, under mu, when the run stops starting calls: a call
	// about to be sent is then refused (starting).
	closed bool
	// halting is set by halt before it waits for mu: a call whose start
	// hook waited for mu meanwhile (a result being written again and
	// again while the state is down) is not sent once the run has said it
	// stops.
	halting atomic.Bool
	// ctx is the run's context, for a journal that takes one.
	ctx   context.Context
	st    *state.State
	sum   *Summary
	queue []task

	pending       map[string]int // instance address -> calls not yet done in this run
	enrichBlocks  []*enrichBlock
	cands         *plan.Candidates // chooses the enrich blocks' people, pass after pass
	claimed       plan.Claims      // people queued, in flight, enriched or failed in this run, with their block
	changes       int              // results recorded: a block's next round looks again when this moved
	ranSearches   map[string]bool  // searches completed in this run
	hadRun        map[string]bool  // searches state had before this run
	splits        map[string]*splitRun
	creditsBudget int
	callsBudget   int // calls the run may still start
	seq           int
	par           int
	inflight      int // calls handed to a worker whose outcome is not handled yet
	stopped       bool
	// cut is why the run did less than its plan without stopping (a
	// split search's bound reached): it ends the run as stopped.
	cut string
	// gate is closed by halt: calls still waiting for the rate limit are
	// then not sent (api.WithSendGate), so stopping stops spending at once.
	gate chan struct{}
	// sent receives each call as it is really sent, from the workers; it
	// is buffered for every call in flight, so a worker never blocks.
	sent      chan Call
	waits     chan waitEvent // waits before retries, from the workers
	announced map[int]bool   // calls whose CallStart was reported
	fatal     error
	// shares lists, by profile address read in this run, the profile
	// addresses that share its read (update.go); profiles indexes the
	// configured profiles by address, built on first use.
	shares   map[string][]string
	profiles map[string]*config.Profile
	// jobs are the job changes the last fold recorded (recordSeen); r.mu
	// guards it.
	jobs []JobChange
	// waiting are the enrichments whose people another workspace's apply
	// holds, claimed again when poll fires (claims.go).
	waiting []task
	poll    *time.Timer
}

// Run executes the plan and returns its summary. The error is non-nil only
// when the run could not go on safely (the journal failed, the context was
// cancelled); failed calls are in the summary, not in the error.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	if opts.Config == nil || opts.Plan == nil || opts.State == nil || opts.Journal == nil || opts.Service == nil {
		return nil, errors.New("engine: incomplete options")
	}
	r := &runner{
		opts:        opts,
		now:         opts.Now,
		progress:    opts.Progress,
		st:          opts.State,
		pending:     map[string]int{},
		claimed:     plan.Claims{},
		cands:       plan.NewCandidates(opts.Config, opts.Reuse),
		ranSearches: map[string]bool{},
		hadRun:      map[string]bool{},
		cpe:         opts.Config.API.CreditsPerEnrich,
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.progress == nil {
		r.progress = NopProgress{}
	}
	if r.cpe <= 0 {
		r.cpe = 1
	}
	// The calls in flight are bounded by api.parallelism, the one value
	// the pacer, the HTTP pool and the plan read too (apply --parallelism
	// sets it).
	par := opts.Config.API.Parallelism
	if par <= 0 {
		par = 1
	}
	r.par = par
	r.ctx = ctx
	r.gate = make(chan struct{})
	r.sent = make(chan Call, par)
	r.waits = make(chan waitEvent, 4*par)
	r.announced = map[int]bool{}
	start := r.now()
	r.sum = &Summary{ByStatus: map[string]int{}}
	// The moves first: the plan was made on the state with them.
	if err := r.move(); err != nil {
		return r.sum, err
	}
	if err := r.prepare(); err != nil {
		return r.sum, err
	}
	r.progress.Start(opts.Plan, r.sum.CallsPlannedMax, r.sum.CreditsPlannedMax)
	if err := r.forget(); err != nil {
		r.halt(err.Error())
		r.progress.Summary(r.sum)
		return r.sum, err
	}
	if err := r.imports(); err != nil {
		r.halt(err.Error())
		r.progress.Summary(r.sum)
		return r.sum, err
	}
	if err := r.updates(); err != nil {
		r.halt(err.Error())
		r.progress.Summary(r.sum)
		return r.sum, err
	}
	err := r.loop(ctx, par)
	r.stopPoll()
	if err == nil {
		r.checkCutShort()
	}
	r.sum.Duration = r.now().Sub(start)
	r.finishSummary()
	r.progress.Summary(r.sum)
	return r.sum, err
}

// prepare turns the plan's changes into tasks and enrich blocks.
func (r *runner) prepare() error {
	cfg := r.opts.Config
	searches := map[string]*config.Search{}
	for _, s := range cfg.Searches {
		searches[s.Address] = s
	}
	profiles := map[string]*config.Profile{}
	for _, p := range cfg.Profiles {
		profiles[p.Address] = p
	}
	enriches := map[string]*config.Enrich{}
	for _, e := range cfg.Enriches {
		enriches[e.Address] = e
	}
	for _, c := range r.opts.Plan.Changes {
		if c.CallsMax == 0 && c.Reuses == 0 {
			continue
		}
		switch c.Kind {
		case kind.Search:
			s, ok := searches[c.Address]
			if !ok {
				return fmt.Errorf("the plan names %s, which the configuration does not declare; run plan again", c.Address)
			}
			if s.SplitBy != nil {
				if err := r.prepareSplit(s, c); err != nil {
					return err
				}
				continue
			}
			r.push(task{call: Call{Kind: kind.Search, Address: s.Address, Label: searchLabel(s)}, search: s})
			r.hadRun[s.Address] = r.st.Searches[s.Address] != nil
			r.pending[s.Address]++
		case kind.Profile:
			p, ok := profiles[c.Address]
			if !ok {
				return fmt.Errorf("the plan names %s, which the configuration does not declare; run plan again", c.Address)
			}
			r.push(task{call: Call{Kind: kind.Profile, Address: p.Address, Page: p.PageName, Label: p.PageName}, profile: p, page: p.Request})
			r.pending[p.Address]++
		case kind.Enrich:
			e, ok := enriches[c.Address]
			if !ok {
				return fmt.Errorf("the plan names %s, which the configuration does not declare; run plan again", c.Address)
			}
			r.enrichBlocks = append(r.enrichBlocks, &enrichBlock{cfg: e, budget: c.CallsMax})
		case kind.Track:
			if err := r.prepareTrack(c); err != nil {
				return err
			}
		}
	}
	// The run as a whole may not spend more than the plan's totals, which
	// count a person shared by several enrich blocks once (the per-block
	// bounds add up to more), nor more than max_credits (0: none).
	r.sum.CallsPlannedMax = r.opts.Plan.Totals.CallsMax
	r.sum.CreditsPlannedMax = r.opts.Plan.Totals.CreditsMax
	r.creditsBudget = r.sum.CreditsPlannedMax
	if max := cfg.API.MaxCredits; max >= 0 && max < r.creditsBudget {
		r.creditsBudget = max
	}
	r.callsBudget = r.sum.CallsPlannedMax
	r.prepareShares()
	r.enrichDeps()
	return nil
}

// enrichDeps gives each enrich block the calls of the run it waits for:
// its sources' (and, with refresh_on, every track's, whose reads may
// change its people).
func (r *runner) enrichDeps() {
	cfg := r.opts.Config
	for _, b := range r.enrichBlocks {
		b.deps = map[string]bool{}
		for _, a := range cfg.Resolve(b.cfg.From) {
			if r.pending[a] > 0 {
				b.deps[a] = true
			}
		}
		if len(b.cfg.RefreshOn) > 0 {
			// Its people may change with any track read of the run.
			for _, t := range cfg.Tracks {
				if r.pending[t.Address] > 0 {
					b.deps[t.Address] = true
				}
			}
		}
	}
}

func (r *runner) push(t task) { r.queue = append(r.queue, t) }

// move records the plan's moves in one event, before anything else: no
// call, only state. The plan was made on the state as it is after them.
func (r *runner) move() error {
	var moves []state.Move
	for _, c := range r.opts.Plan.Changes {
		if c.Action == plan.Moved {
			moves = append(moves, state.Move{From: c.MovedFrom, To: c.Address})
		}
	}
	if len(moves) == 0 {
		return nil
	}
	if bad := r.st.MoveConflicts(moves); len(bad) > 0 {
		return fmt.Errorf("the plan moves %s to %s, where the state holds records now; run plan again", bad[0].From, bad[0].To)
	}
	ev := &state.Event{At: r.now(), Kind: state.EventMove, Address: state.MovesAddress, Move: &state.MoveEvent{Moves: moves}}
	if err := r.recorded(r.record(ev)); err != nil {
		return err
	}
	r.sum.Moved = moves
	return nil
}

// forget records the forget changes: no call, only state.
func (r *runner) forget() error {
	for _, c := range r.opts.Plan.Changes {
		if c.Action != plan.Forget {
			continue
		}
		if c.Kind == kind.People {
			// Retention: the people the plan named, removed before any
			// call so that no enrichment is spent on them.
			ev := &state.Event{At: r.now(), Kind: state.EventForgetPeople, Address: state.PeopleAddress,
				People: &state.ForgetPeopleEvent{Reason: state.ForgetRetention, PersonIDs: c.PersonIDs}}
			if err := r.recorded(r.record(ev)); err != nil {
				return err
			}
			r.sum.Expired += len(c.PersonIDs)
			continue
		}
		ev := &state.Event{At: r.now(), Kind: state.EventForget, Address: c.Address}
		if err := r.recorded(r.record(ev)); err != nil {
			return err
		}
		r.sum.Forgotten = append(r.sum.Forgotten, c.Address)
	}
	return nil
}

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
	if r.fatal != nil {
		return r.fatal
	}
	return nil
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
		go func(t task) { done <- r.do(ctx, t) }(t)
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
	return ctx.Err()
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

// do makes one call; it runs in its own goroutine and touches no runner
// state but the read-only task.
func (r *runner) do(ctx context.Context, t task) outcome {
	// The duration is the service's: from when the call left the pacer
	// (its first attempt), not from when it was queued.
	start := r.now()
	o := outcome{task: t}
	ctx = api.WithSendGate(ctx, r.gate)
	ctx = api.WithWaitHook(ctx, func(d time.Duration, reason string) { r.reportWait(t.call, d, reason) })
	ctx = api.WithStartHook(ctx, func() error {
		if o.sent {
			return nil
		}
		if err := r.starting(t, &o); err != nil {
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
	return o
}

// handle records an outcome: the result goes to the journal first. The
// claim of an enrichment is released once its outcome is recorded.
func (r *runner) handle(o outcome) {
	t := o.task
	if t.claimed {
		defer func() { r.unclaim(t, o.recorded) }()
	}
	r.pending[t.call.Address]--
	if t.call.Kind == kind.Profile && len(r.shares[t.call.Address]) > 0 {
		// The reads shared with this one follow its outcome.
		defer func() { r.settleShares(t.call.Address, o.err == nil && o.event != nil && r.fatal == nil) }()
	}
	if !o.sent && o.err == nil {
		// A Service that does not report sends (a test double): count the
		// call now.
		r.announce(t.call)
	}
	if errors.Is(o.err, ErrJournal) {
		// The pending enrichment could not be recorded: nothing was sent,
		// and nothing more may be. No call was made, so it is no failed
		// call: the stop says what happened.
		r.fatal = o.err
		r.refund(t)
		r.halt(fmt.Sprintf("the enrichment of %s could not be noted before it was sent, so it was not sent: %v", personName(t.call), journalCause(o.err)))
		return
	}
	if o.err != nil && !o.sent && errors.Is(o.err, errExcluded) {
		// Excluded as it was about to be sent (starting): nothing was
		// spent, and the person counts as excluded.
		r.refund(t)
		return
	}
	if o.err != nil && !o.sent && notMade(o.err) {
		// Stopped before it was sent: nothing was spent.
		r.refund(t)
		r.voidPending(o)
		var le *errLedger
		if errors.As(o.err, &le) {
			r.halt(le.Error())
		}
		return
	}
	if o.err != nil {
		r.fail(t, o.err, !o.sent)
		if !unknownOutcome(o.err) {
			r.voidPending(o)
			if t.call.Kind == kind.Enrich {
				r.unreserve(t, o.sent) // certainly not charged
			}
		}
		return
	}
	o.event.At = r.now()
	// A search or profile read may change the leads of people any block
	// reads (where, page name); an enrichment of someone another block
	// had enriched (or had left with an unknown outcome) gives that block
	// its place back. Either may give a block whose sources are done more
	// people to enrich in the next round.
	r.changes++
	jobs, err := r.recordSeen(o.event)
	var kept *keptError
	if errors.As(err, &kept) {
		// Kept elsewhere (a rescue file) or recorded: a result like any
		// other, and the run stops.
		o.recorded = true
		r.sum.Kept = append(r.sum.Kept, t.call)
		r.succeeded(t, o, jobs)
		r.recorded(err)
		return
	}
	if err != nil {
		r.unrecorded(t, o.event, err)
		return
	}
	o.recorded = true
	r.succeeded(t, o, jobs)
}

// succeeded counts t, whose result o is recorded, and reports it done,
// with the job changes its fold recorded.
func (r *runner) succeeded(t task, o outcome, jobs []JobChange) {
	r.sum.Succeeded++
	res := CallResult{Duration: o.duration, Jobs: jobs}
	switch t.call.Kind {
	case kind.Search:
		if t.split != nil {
			res.Results = len(o.event.Split.Leads)
			res.Capped, res.SplitNext = r.splitDone(t)
			break
		}
		n := len(o.event.Search.Leads)
		res.Results, res.Capped = n, n == api.MaxResults
		r.ranSearches[t.call.Address] = true
	case kind.Profile:
		r.sum.Profiles = append(r.sum.Profiles, t.call.Address)
	case kind.Track:
		r.sum.Tracked++
		if p := r.st.Person(t.call.Person); p != nil {
			res.Left, res.Private = p.Status == state.StatusLeft, p.Status == state.StatusPrivate
		}
	case kind.Enrich:
		res.Credits = r.cpe
		r.sum.Credits += r.cpe
		res.Status = o.event.Enrich.Result.ValidationStatus
		r.sum.Enriched++
		r.sum.ByStatus[res.Status]++
	}
	r.progress.CallDone(t.call, res)
}

// unrecorded counts t, whose answer ev came back but could be neither
// recorded nor kept anywhere: the next apply makes the call again. An
// enrichment answered is charged all the same; the answer goes with the
// failure, for the user to keep; the run stops.
func (r *runner) unrecorded(t task, ev *state.Event, err error) {
	r.fatal = err
	if t.call.Kind == kind.Enrich {
		r.sum.Credits += r.cpe
	}
	r.sum.Failures = append(r.sum.Failures, Failure{Address: t.call.Address, Kind: t.call.Kind, Person: t.call.Person, Name: t.call.Label,
		Err: err, Unrecorded: true, Answer: ev})
	if ap, ok := r.progress.(AnswerProgress); ok {
		ap.Unrecorded(t.call, ev, err)
	}
	r.halt(err.Error())
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

// refund gives back the budget of a call that was not made.
func (r *runner) refund(t task) {
	r.unreserve(t, false)
	r.callsBudget++
	if t.call.Kind != kind.Enrich {
		return
	}
	r.creditsBudget += r.cpe
	delete(r.claimed, t.call.Person)
	for _, b := range r.enrichBlocks {
		if b.cfg.Address == t.call.Address {
			b.budget++
		}
	}
}

// fail records a failure of t: a call that failed for good, or, with
// noCall, one that failed before anything was sent.
func (r *runner) fail(t task, err error, noCall bool) {
	r.splitFailed(t)
	r.sum.Failures = append(r.sum.Failures, Failure{Address: t.call.Address, Kind: t.call.Kind, Person: t.call.Person, Name: t.call.Label, Err: err, NoCall: noCall})
	r.progress.CallError(t.call, err)
	f := &state.Failure{At: r.now(), Message: err.Error()}
	var ae *api.Error
	if errors.As(err, &ae) {
		f.Status = ae.Status
	}
	var ev *state.Event
	switch {
	case t.call.Kind == kind.Track:
		// A person's failed read is kept in the summary only, as an
		// enrichment's: the address is the block's.
	case t.call.Kind != kind.Enrich:
		ev = &state.Event{At: r.now(), Kind: state.EventFailure, Address: t.call.Address, Failure: f}
	case unknownOutcome(err):
		// The credits may be spent: state keeps it, so that the block's
		// limit counts it and the next plan says what re-enriching costs.
		r.sum.CreditsUnknown += r.cpe
		ev = &state.Event{At: r.now(), Kind: state.EventEnrichUnknown, Address: t.call.Address, Failure: f,
			Enrich: &state.EnrichEvent{PersonID: t.call.Person, Credits: r.cpe}}
	}
	// Another enrich failure is kept in the summary only: the address is
	// the block's, and one person's failure must not mark the block failed.
	if ev != nil {
		if jerr := r.recorded(r.record(ev)); jerr != nil {
			r.fatal = jerr
			r.halt(jerr.Error())
			return
		}
	}
	switch {
	case ae == nil:
	case ae.Kind == api.KindForbidden:
		r.halt("the service answered 403 Forbidden (" + ae.Message + "); " + ae.Hint())
	case ae.Permanent():
		// A used-up quota or a host that does not resolve: every other
		// call would fail the same way.
		r.halt(ae.Error() + "; " + ae.Hint())
	}
	if errors.Is(err, context.Canceled) {
		r.halt("aborted")
	}
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
		switch {
		case !b.tried:
		case final && !b.final:
		case final && idle && b.seen != r.changes:
		case !final && grew && lowQueue:
		default:
			continue
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

// checkCutShort makes a run that did less than its plan say so: when an
// enrich block, or the run, has used its bound while people are still to
// enrich (or a split search reached its bound), the run ends as stopped,
// with why. With a plan that holds, neither happens.
func (r *runner) checkCutShort() {
	if r.stopped {
		return
	}
	left := map[string]bool{}
	for _, b := range r.enrichBlocks {
		if b.broken || (b.budget > 0 && r.creditsBudget >= r.cpe) {
			continue // not held back by a bound
		}
		r.mu.Lock()
		todo, err := r.cands.Claimed(r.st, b.cfg, r.planTime(), r.claimed)
		r.mu.Unlock()
		if err != nil {
			continue
		}
		for _, id := range todo {
			if _, ok := r.claimed[id]; ok {
				continue
			}
			if p := r.st.People[id]; p != nil && p.Lead.PageName != "" {
				left[id] = true
			}
		}
	}
	reason := r.cut
	if len(left) > 0 {
		reason = fmt.Sprintf("the plan's bound of %s is reached with %s more %s to enrich; run plan again to see the rest",
			textfmt.Plural(r.sum.CreditsPlannedMax, "credit"), textfmt.Thousands(len(left)), oneOrMany(len(left), "person", "people"))
	}
	if reason != "" {
		r.halt(reason)
	}
}

// oneOrMany is one when n is 1, else many.
func oneOrMany(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// planTime is the time staleness (refresh) is judged at: the plan's, so
// that people who turn stale after the plan was made are not enriched
// beyond what it said.
func (r *runner) planTime() time.Time {
	if t := r.opts.Plan.CreatedAt; !t.IsZero() {
		return t
	}
	return r.now()
}

func (r *runner) finishSummary() {
	r.finishBudget()
	r.sum.NotSpent.Excluded = r.cands.Excluded()
	for i := range r.sum.Imported {
		im := &r.sum.Imported[i]
		im.Saved, im.Excluded = r.importCounts(im.Address)
		r.sum.NotSpent.Imported += im.Saved
	}
	for _, n := range r.sum.Reused {
		r.sum.NotSpent.Reused += n
	}
	r.sum.NotSpent.CreditsPerEnrich = r.cpe
	r.boundNotSpent()
	for addr := range r.ranSearches {
		rec := r.st.Searches[addr]
		if rec == nil {
			continue // forgotten or re-keyed since; nothing to report
		}
		first := !r.hadRun[addr]
		added := rec.Added
		if first {
			// Every person a first run keeps is new to the search.
			added = len(rec.LeadIDs)
		}
		r.sum.Searches = append(r.sum.Searches, SearchOutcome{
			Address: addr, Results: rec.ResultCount, Kept: len(rec.LeadIDs),
			Added: added, Removed: rec.Removed, Capped: rec.Capped, First: first, Suppressed: rec.Suppressed, Changed: rec.Changed,
			Split: rec.SplitSummary(),
		})
	}
	r.sum.SplitsUnfinished = r.unfinishedSplits()
	sort.Slice(r.sum.SplitsUnfinished, func(i, j int) bool {
		return r.sum.SplitsUnfinished[i].Address < r.sum.SplitsUnfinished[j].Address
	})
	sort.Slice(r.sum.Searches, func(i, j int) bool { return r.sum.Searches[i].Address < r.sum.Searches[j].Address })
}

// searchLabel is a short description of a search's request.
func searchLabel(s *config.Search) string {
	keys := make([]string, 0, len(s.Request.Params))
	for k := range s.Request.Params {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		// keywords and searchUrl first.
		pi, pj := keys[i] == "keywords" || keys[i] == "searchUrl", keys[j] == "keywords" || keys[j] == "searchUrl"
		if pi != pj {
			return pi
		}
		return keys[i] < keys[j]
	})
	var b strings.Builder
	for _, k := range keys {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		switch v := s.Request.Params[k].(type) {
		case string:
			fmt.Fprintf(&b, "%s=%q", k, v)
		case []string:
			fmt.Fprintf(&b, "%s=[%s]", k, strings.Join(v, ", "))
		default:
			fmt.Fprintf(&b, "%s=%v", k, v)
		}
	}
	return b.String()
}
