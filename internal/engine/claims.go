package engine

import (
	"fmt"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// Claims are the people the applies of the backend's workspaces are
// paying for right now (backend.Claims, through run): an enrichment is
// claimed before it is sent and released once its outcome is recorded, so
// that two applies running at the same moment in two workspaces never both
// pay for one person.
type Claims interface {
	// Claim claims the person named by keys (state.LookupKeys).
	Claim(keys []string) (Claim, error)
	// Release ends the claim; enriched says the person's enrichment is
	// recorded here (paid for, or copied).
	Release(keys []string, enriched bool) error
}

// Claim is the outcome of Claims.Claim.
type Claim struct {
	// Held is true when this run holds the person now; otherwise HeldBy
	// names the workspace whose running apply does.
	Held   bool
	HeldBy string
	// Since names, when Held, the workspace whose apply held the person
	// after this run began and let them go: with Enriched, it recorded
	// their enrichment (copy it); without, it ended holding them (killed).
	Since    string
	Enriched bool
}

// ClaimedCount is what became of the people another workspace's apply,
// running at the same moment, was enriching when this run came to them:
// Copied once that apply had recorded them (no call, no credit), or Left
// for the next apply (not recorded within the wait, or not readable yet).
type ClaimedCount struct {
	Copied, Left int
}

// claimTimes are the defaults of Options.ClaimWait and ClaimPoll: the wait
// is what one attempt of the other apply's call may take (the API
// timeout) plus the pace of the calls that may be ahead of it at the
// shared rate limit (this run's and another as parallel); the claim is
// tried again once per call the rate limit allows, between 50 ms and 1 s.
func (r *runner) claimTimes() (wait, poll time.Duration) {
	wait, poll = r.opts.ClaimWait, r.opts.ClaimPoll
	cfg := r.opts.Config.API
	rate := cfg.RateLimit
	if rate <= 0 {
		rate = 1
	}
	interval := time.Duration(float64(time.Second) / rate)
	if wait <= 0 {
		timeout := cfg.Timeout
		if timeout <= 0 {
			timeout = defaultCallTimeout
		}
		wait = timeout + time.Duration(2*r.par+1)*interval
	}
	if poll <= 0 {
		poll = min(max(interval, 50*time.Millisecond), time.Second)
	}
	return wait, poll
}

// defaultCallTimeout is the API's timeout of one attempt when the
// configuration sets none.
const defaultCallTimeout = api.DefaultTimeout

// claimHead claims the person of the enrichment at the head of the queue
// before it is sent, and reports whether it is to be sent now. A person
// another workspace's apply holds leaves the queue to wait for it (and,
// past the wait, is left for the next apply); one such an apply enriched
// since this run began is copied instead. A store that cannot be read or
// written stops the run.
func (r *runner) claimHead() bool {
	t := &r.queue[0]
	if t.call.Kind != kind.Enrich || r.opts.Claims == nil || t.claimed {
		return true
	}
	if t.claimKeys == nil {
		if p := r.st.Person(t.call.Person); p != nil {
			t.claimKeys = state.LookupKeys(p)
		}
	}
	c, err := r.opts.Claims.Claim(t.claimKeys)
	if err != nil {
		r.halt(fmt.Sprintf("the enrichment of %s could not be claimed across the workspaces before it was sent, so it and the calls after it were not sent: %v", personName(t.call), err))
		return false
	}
	if !c.Held {
		r.queue = r.queue[1:]
		r.heldElsewhere(*t, c.HeldBy)
		return false
	}
	t.claimed = true
	if c.Since == "" {
		return true
	}
	return r.afterOther(t, c)
}

// afterOther decides about t, which this run now holds, after another
// workspace's apply held its person and let them go (c.Since): the
// enrichment it recorded is copied; one it says it recorded but that
// cannot be read yet is left for the next apply; without one (that apply
// ended holding them) the call is made here. It reports whether t is to
// be sent.
func (r *runner) afterOther(t *task, c Claim) bool {
	r.mu.Lock()
	ru, ok, err := r.cands.Recheck(r.st, t.enrich, t.call.Person, r.planTime())
	r.mu.Unlock()
	if err != nil {
		r.unclaim(*t, false)
		r.claimsFailed(err)
		return false
	}
	switch {
	case ok:
		r.queue = r.queue[1:]
		r.copyClaimed(*t, ru.From, c.Since)
		return false
	case c.Enriched:
		r.queue = r.queue[1:]
		r.unclaim(*t, false)
		r.leave(*t, c.Since)
		return false
	}
	return true
}

// copyClaimed records the copy of from, the enrichment another
// workspace's apply (claimer) has just recorded of t's person, instead of
// t's call: no call, no credit.
func (r *runner) copyClaimed(t task, from state.Reusable, claimer string) {
	ev := &state.Event{At: r.now(), Kind: state.EventReuse, Address: t.call.Address,
		Reuse: &state.ReuseEvent{PersonID: t.call.Person, Workspace: from.Workspace, Enrichment: from.Enrichment}}
	if err := r.recorded(r.record(ev)); err != nil {
		r.unclaim(t, false)
		r.dropTask(t)
		r.fatal = err
		r.halt(err.Error())
		return
	}
	r.changes++
	if r.sum.Reused == nil {
		r.sum.Reused = map[string]int{}
	}
	r.sum.Reused[from.Workspace]++
	r.countClaimed(claimer, ClaimedCount{Copied: 1})
	r.unclaim(t, true)
	r.dropTask(t)
}

// heldElsewhere puts t, whose person the apply of workspace ws holds, in
// the waiting list, to be claimed again at the next poll; past the wait
// it is left for the next apply.
func (r *runner) heldElsewhere(t task, ws string) {
	wait, _ := r.claimTimes()
	now := r.now()
	if t.waitSince.IsZero() {
		t.waitSince = now
		if wp, ok := r.progress.(WaitProgress); ok {
			wp.Waiting(t.call, wait, fmt.Sprintf("enriched by workspace %s's apply running now; copied once it records them", ws))
		}
	} else if now.Sub(t.waitSince) >= wait {
		r.leave(t, ws)
		return
	}
	r.waiting = append(r.waiting, t)
}

// leave gives up t, whose person another workspace's apply (ws) is
// enriching: the next apply copies what it records. The person stays
// claimed in this run, so that no block queues them again.
func (r *runner) leave(t task, ws string) {
	r.countClaimed(ws, ClaimedCount{Left: 1})
	r.dropTask(t)
}

// dropTask takes back what queuing t took, for an enrichment not made:
// its place in its block and its credits.
func (r *runner) dropTask(t task) {
	r.pending[t.call.Address]--
	r.creditsBudget += r.cpe
	for _, b := range r.enrichBlocks {
		if b.cfg.Address == t.call.Address {
			b.budget++
		}
	}
}

func (r *runner) countClaimed(ws string, n ClaimedCount) {
	if r.sum.ClaimedElsewhere == nil {
		r.sum.ClaimedElsewhere = map[string]ClaimedCount{}
	}
	c := r.sum.ClaimedElsewhere[ws]
	c.Copied += n.Copied
	c.Left += n.Left
	r.sum.ClaimedElsewhere[ws] = c
}

// unclaim releases t's claim, if this run holds one.
func (r *runner) unclaim(t task, enriched bool) {
	if !t.claimed || r.opts.Claims == nil {
		return
	}
	if err := r.opts.Claims.Release(t.claimKeys, enriched); err != nil {
		r.claimsFailed(err)
	}
}

// claimsFailed stops the run: without its claims, two workspaces' applies
// could pay for one person.
func (r *runner) claimsFailed(err error) {
	r.halt("the claims of the enrichments in flight across the workspaces cannot be read or written, so the calls not yet started are not sent: " + err.Error())
}

// pollClaims is the channel that fires when the people waited for are to
// be claimed again; nil when none is waited for.
func (r *runner) pollClaims() <-chan time.Time {
	if len(r.waiting) == 0 {
		return nil
	}
	if r.poll == nil {
		_, poll := r.claimTimes()
		r.poll = time.NewTimer(poll)
	}
	return r.poll.C
}

// requeueWaiting puts the enrichments waited for back at the head of the
// queue, to be claimed again.
func (r *runner) requeueWaiting() {
	r.poll = nil
	r.queue = append(r.waiting, r.queue...)
	r.waiting = nil
}

// stopPoll stops the timer of the poll, if any.
func (r *runner) stopPoll() {
	if r.poll != nil {
		r.poll.Stop()
		r.poll = nil
	}
}
