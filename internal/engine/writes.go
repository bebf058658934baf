package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
)

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
	return r.checkpoint()
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
	if p, ok := errors.AsType[*recovered.Panic](o.err); ok {
		r.panicked(&o, p)
		return
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
	r.result(&o)
}

// result records o's answer, the journal first, and counts it.
func (r *runner) result(o *outcome) {
	t := o.task
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
		r.succeeded(t, *o, jobs)
		r.recorded(err)
		return
	}
	if err != nil {
		r.unrecorded(t, o.event, err)
		return
	}
	o.recorded = true
	r.succeeded(t, *o, jobs)
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

// panicked ends the run after a worker's panic (a bug): no call starts
// any more, the calls in flight are waited for and their answers
// recorded, and Run returns the panic. The call itself: one whose answer
// was read before the panic is recorded like any; one sent whose answer
// was lost is a failure of unknown outcome (an enrichment's credits may
// be spent: state says so); one never sent goes back to the budget (its
// pending enrichment voided).
func (r *runner) panicked(o *outcome, p *recovered.Panic) {
	r.fatal, r.bug = p, p
	r.halt(p.Error())
	if !o.sent && !o.answered {
		r.refund(o.task)
		r.voidPending(*o)
		return
	}
	r.announce(o.task.call) // a Service that does not report sends
	if o.event != nil {
		r.result(o)
		return
	}
	r.fail(o.task, p, false)
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
