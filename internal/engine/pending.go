package engine

import (
	"errors"

	"github.com/leadsync/leadsync/internal/api"
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
	if err := r.record(ev); err != nil {
		r.fatal = err
		r.halt("stopped: " + err.Error())
	}
}

// unknownOutcome reports whether a failed call may have been charged
// (api.Error.OutcomeUnknown). An error that is not the client's (a test
// double's) is taken as charged only when it says a request went out.
func unknownOutcome(err error) bool {
	var ae *api.Error
	if errors.As(err, &ae) {
		return ae.OutcomeUnknown()
	}
	return false
}
