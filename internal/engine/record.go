package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// Journal is where each completed call is recorded, durably, before its
// result is used. A backend's recorder implements it, behind the layer of
// internal/run that keeps what it cannot write (a rescue file).
//
// Append may fail and still have the event kept durably: its error then
// says so, and the event counts as recorded (it is folded in) while the
// run stops starting calls:
//   - an error with a KeptIn() string method: the event could not be
//     written where the state lives and was kept elsewhere (the path
//     KeptIn names), for the next command to fold in;
//   - an error with a Recorded() bool method that returns true: the event
//     is recorded, but the run must not go on (the pg backend's lost lock).
//
// An event whose Append fails otherwise is not recorded. A pending note
// (state.EventEnrichPending) is never kept elsewhere: a call whose note
// cannot be written is not sent.
type Journal interface {
	Append(e *state.Event) error
}

// ContextJournal is a Journal that takes the run's context: a journal that
// tries a failed write again for a while stops trying (and keeps the event
// elsewhere at once) when the run is aborted.
type ContextJournal interface {
	AppendContext(ctx context.Context, e *state.Event) error
}

// keptError is the outcome of record when the journal kept the event
// elsewhere, or recorded it but cannot go on: the event is in the state,
// and why the run stops is Error.
type keptError struct {
	where string // the file it is kept in; "" when recorded where the state lives
	cause error
}

func (e *keptError) Error() string {
	if e.where == "" {
		return e.cause.Error()
	}
	return fmt.Sprintf("the state could not be written (%v): the results since are kept in %s until they are written into it (the next command folds them in)", e.cause, e.where)
}

func (e *keptError) Unwrap() error { return e.cause }

// keptBy returns the keptError that err of Append means, nil when err says
// the event was not recorded.
func keptBy(err error) *keptError {
	var kept interface{ KeptIn() string }
	if errors.As(err, &kept) {
		return &keptError{where: kept.KeptIn(), cause: err}
	}
	var rec interface{ Recorded() bool }
	if errors.As(err, &rec) && rec.Recorded() {
		return &keptError{cause: err}
	}
	return nil
}

// KeptIn is the file a kept error names ("" when none): what the summary
// says the results are kept in.
func (e *keptError) KeptIn() string { return e.where }

// record writes ev to the journal (synced) and then folds it into the
// state. It runs on the loop's goroutine, and in a worker for the pending
// note of the enrichment it is about to send: r.mu is held from the
// append to the fold, so that live state and a replay of the journal see
// the events in one order, and no call starts while a result is being
// written (see starting).
//
// An event the journal kept elsewhere, or recorded without being able to
// go on, is folded in as recorded, and record returns a *keptError: from
// then on no call starts (r.closed), and the caller stops the run with its
// reason (recorded).
func (r *runner) record(ev *state.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recordLocked(ev)
}

// recordSeen is record that also returns the job changes the event's
// fold recorded; the run's Drift sums them.
func (r *runner) recordSeen(ev *state.Event) ([]JobChange, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jobs = nil
	err := r.recordLocked(ev)
	return r.jobs, err
}

func (r *runner) recordLocked(ev *state.Event) error {
	var err error
	if cj, ok := r.opts.Journal.(ContextJournal); ok && r.ctx != nil {
		err = cj.AppendContext(r.ctx, ev)
	} else {
		err = r.opts.Journal.Append(ev)
	}
	kept := keptBy(err)
	if err != nil && kept == nil {
		return &journalError{cause: err}
	}
	if ferr := r.st.Fold(*ev); ferr != nil {
		return fmt.Errorf("applying %s to state: %w", ev.Address, ferr)
	}
	// What the fold saw change (a pending note sees nothing).
	r.jobs = r.sum.Drift.add(r.st, r.st.LastDrifts())
	r.learn(ev)
	if kept != nil {
		r.closed = true
		return kept
	}
	return nil
}

// recorded passes on err of record, except a *keptError: the event is
// recorded, and the run stops, saying why (the first reason stays).
func (r *runner) recorded(err error) error {
	var kept *keptError
	if errors.As(err, &kept) {
		if r.sum.KeptIn == "" {
			r.sum.KeptIn = kept.where
		}
		r.halt(kept.Error())
		return nil
	}
	return err
}

// errStopping refuses a call about to be sent after the run stopped.
var errStopping = errors.New("the run is stopping")

// errExcluded refuses an enrichment about to be sent whose person an
// exclude block names by what the run learned while it waited.
var errExcluded = errors.New("excluded by what the run learned")

// learn tells the chooser of the people whose enrichment ev (just folded
// in, under r.mu) recorded, copied or imported: their company's domain
// may exclude a colleague (by = "domain") whose call waits for the rate
// limit, which starting checks under the same lock.
func (r *runner) learn(ev *state.Event) {
	switch ev.Kind {
	case state.EventEnrich:
		r.cands.Learn(r.st.Person(ev.Enrich.PersonID))
	case state.EventReuse:
		r.cands.Learn(r.st.Person(ev.Reuse.PersonID))
	case state.EventImport:
		if rec := r.st.Imports[ev.Address]; rec != nil {
			for _, id := range rec.PersonIDs {
				r.cands.Learn(r.st.People[id])
			}
		}
	}
}

// starting is the start hook of t's call (api.WithStartHook): its attempt
// has left the pacer and is about to be sent. It holds r.mu, so that no
// call is sent while a result is being written (a journal may try a
// failed write again for a while: nothing new is spent meanwhile), and it
// refuses the call once the run has stopped. An enrichment notes first, in
// the journal, that it may be charged, so that a kill while it is in
// flight leaves it an unknown outcome that the next plan shows, never a
// silent charge. It is noted here, not before the wait for the rate
// limit: calls still waiting are not in flight, and a kill must not count
// them as unknown.
func (r *runner) starting(t task, o *outcome) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.halting.Load() {
		return errStopping
	}
	if t.call.Kind == kind.Enrich {
		if r.cands.ExcludedNow(r.st, r.st.Person(t.call.Person), r.planTime()) {
			// A colleague's enrichment, recorded while this call waited
			// for the rate limit, gave a domain an exclude block lists.
			return errExcluded
		}
		if err := r.recordLocked(r.pendingEvent(t)); err != nil {
			return err // not sent
		}
		o.pending = true
		if r.halting.Load() {
			// The run said it stops while the note was being written
			// (tried again and again while the state is down).
			return errStopping
		}
	}
	// Last: once the ledger counts the call as sent, it is sent.
	if err := r.sending(t); err != nil {
		return err
	}
	r.flying++
	// Announced under mu: a stop that counts it in flight shows it
	// started first (halt drains r.sent before it says it stops).
	r.sent <- t.call
	return nil
}
