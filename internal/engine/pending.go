package engine

import (
	"errors"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
)

// pendingEvent is the journal's note that t's enrichment is about to be
// sent (state.EventEnrichPending).
func (r *runner) pendingEvent(t task) *state.Event {
	return &state.Event{At: r.now(), Kind: state.EventEnrichPending, Address: t.call.Address,
		Enrich: &state.EnrichEvent{PersonID: t.call.Person, Credits: r.cpe}}
}

// voidPending ends the pending enrichment of o when the call certainly
// charged nothing (state.EventEnrichVoid). A failure to record it leaves
// an unknown outcome in state: more cautious than the truth, never less.
func (r *runner) voidPending(o outcome) {
	if !o.pending {
		return
	}
	t := o.task
	ev := &state.Event{At: r.now(), Kind: state.EventEnrichVoid, Address: t.call.Address,
		Enrich: &state.EnrichEvent{PersonID: t.call.Person, Credits: r.cpe}}
	if err := r.recorded(r.record(ev)); err != nil {
		r.fatal = err
		r.halt(err.Error())
	}
}

// unknownOutcome reports whether a failed call may have been charged
// (api.Error.OutcomeUnknown, or a worker's panic after it was sent). An error that is not the client's (a test
// double's) is taken as charged only when it says a request went out.
func unknownOutcome(err error) bool {
	if _, bug := errors.AsType[*recovered.Panic](err); bug {
		return true // a panic after the call was sent: its answer is lost
	}
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae.OutcomeUnknown()
	}
	return false
}

// personName names the person of an enrich call for messages: their name,
// else their page name.
func personName(c Call) string {
	if c.Label != "" {
		return c.Label
	}
	return c.Page
}

// journalError is a failure to write the journal: it wraps ErrJournal
// and the cause.
type journalError struct{ cause error }

func (e *journalError) Error() string   { return ErrJournal.Error() + ": " + e.cause.Error() }
func (e *journalError) Unwrap() []error { return []error{ErrJournal, e.cause} }

// journalCause is the cause of the journal's failure behind err (which a
// client may have wrapped as not sent), without the wrappers' words.
func journalCause(err error) error {
	var je *journalError
	if errors.As(err, &je) {
		return je.cause
	}
	return err
}
