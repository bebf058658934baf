package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
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
	// Colleagues are the store's company domains, read before the run,
	// when State is a partial state whose plan an exclude block by domain
	// matches (plan.Candidates.WithColleagues); nil learns them from
	// State's people.
	Colleagues *plan.Colleagues
	// Enrich are the store's answers the plan of a partial state was made
	// with (the company domains a copy from another workspace must match:
	// plan.Candidates.WithFacts); nil for a state read whole.
	Enrich *plan.EnrichFacts
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
	// unread are the people of a track's reads not queued yet, whom the
	// state holds in sketch (prepareTrack): a page of them is listed,
	// read whole and queued as reads when this task comes to the head of
	// the queue (readTrackHead). The task itself is no call.
	unread plan.Listed
}

type outcome struct {
	task     task
	pending  bool // an enrich_pending event was recorded before the call
	sent     bool // the call reached the service (its first attempt left the pacer)
	answered bool // the service answered (set as the answer arrives, before event)
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

// runner is one run of a plan. Its fields are grouped by the part of the
// run that owns them (embedded, so that the methods name them as before):
// the scheduler's (schedule, scheduler.go) and the accounting's (accounts,
// accounting.go and budget.go); the rest is the run's inputs, the state and
// what the enrich blocks choose from.
type runner struct {
	opts     Options
	now      func() time.Time
	progress Progress
	cpe      int // credits per enrich

	mu sync.Mutex // guards state mutation (Fold) against concurrent readers, and closed
	// ctx is the run's context, for a journal that takes one.
	ctx context.Context
	st  *state.State

	schedule
	accounts

	pending      map[string]int // instance address -> calls not yet done in this run
	enrichBlocks []*enrichBlock
	cands        *plan.Candidates // chooses the enrich blocks' people, pass after pass
	filled       bool             // the people in sketch were read whole (fillWhole)
	claimed      plan.Claims      // people queued, in flight, enriched or failed in this run, with their block
	changes      int              // results recorded: a block's next round looks again when this moved
	ranSearches  map[string]bool  // searches completed in this run
	hadRun       map[string]bool  // searches state had before this run
	splits       map[string]*splitRun
	// shares lists, by profile address read in this run, the profile
	// addresses that share its read (update.go); profiles indexes the
	// configured profiles by address, built on first use.
	shares   map[string][]string
	profiles map[string]*config.Profile
	// jobs are the job changes the last fold recorded (recordSeen); r.mu
	// guards it.
	jobs []JobChange
}

// schedule is the scheduler's part of a runner: the calls queued, in
// flight and waiting, and whether and why the run stops.
type schedule struct {
	queue []task
	seq   int
	par   int
	// flying counts the calls sent whose outcome is not handled yet
	// (under mu): the calls in flight a stop waits for. inflight counts
	// the calls dispatched, some of which still wait for the rate limit.
	flying   int
	inflight int // calls handed to a worker whose outcome is not handled yet
	// closed is set, under mu, when the run stops starting calls: a call
	// about to be sent is then refused (starting).
	closed bool
	// halting is set by halt before it waits for mu: a call whose start
	// hook waited for mu meanwhile (a result being written again and
	// again while the state is down) is not sent once the run has said it
	// stops.
	halting atomic.Bool
	stopped bool
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
	// bug is the panic of a worker (a *recovered.Panic), which Run
	// returns whatever else failed or stopped it.
	bug error
	// waiting are the enrichments whose people another workspace's apply
	// holds, claimed again when poll fires (claims.go).
	waiting []task
	poll    *time.Timer
}

// accounts is the accounting's part of a runner: the summary, what the
// run may still spend, and what the budget's ledger owes.
type accounts struct {
	sum *Summary
	// softPassed is set when a reservation passed a soft budget
	// (finishBudget says by how much, at the end).
	softPassed bool
	// owed is what the ledger could not take back of sent calls that
	// certainly failed (owedErr why): tried again at the next release and
	// at the end.
	owed          plan.Spending
	owedErr       error
	creditsBudget int
	callsBudget   int // calls the run may still start
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
		cands:       plan.NewCandidates(opts.Config, opts.Reuse).WithColleagues(opts.Colleagues).WithFacts(opts.Enrich).WithPlan(opts.Plan),
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
	r.creditsBudget = r.opts.Plan.CreditsBudget(cfg.API.MaxCredits)
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

// planTime is the time staleness (refresh) is judged at: the plan's, so
// that people who turn stale after the plan was made are not enriched
// beyond what it said.
func (r *runner) planTime() time.Time {
	if t := r.opts.Plan.CreatedAt; !t.IsZero() {
		return t
	}
	return r.now()
}
