package state

import (
	"fmt"
	"time"
)

// EventEnrichUnknown records an enrichment whose outcome is unknown: the
// request may have reached the service (and spent credits) but no usable
// answer came back (a lost connection, a timeout, an answer that could not
// be read or was about someone else). Its Enrich names the person and the
// credits at stake (Result is empty); its Failure says what happened.
const EventEnrichUnknown EventKind = "enrich_unknown"

// UnknownEnrichment is an enrichment whose outcome is unknown (see
// EventEnrichUnknown), kept until the person is enriched: it may have been
// charged, so it counts in its block's limit, and the plan says that
// enriching the person again may cost its credits once more.
type UnknownEnrichment struct {
	At      time.Time `json:"at"`
	By      string    `json:"by"`      // enrich block address
	Credits int       `json:"credits"` // credits that may have been charged
	Message string    `json:"message"` // what happened
	// Pending: noted before the call was sent (EventEnrichPending) and no
	// outcome recorded since. Its credits already count in
	// Usage.CreditsUnknown; the call's outcome, in the same run, settles
	// them (settlePending). A pending one that a later run finds (the run
	// was killed with the call in flight) stays counted.
	Pending bool `json:"pending,omitempty"`
}

// validateUnknown checks an EventEnrichUnknown.
func (e *Event) validateUnknown() error {
	switch {
	case e.Enrich == nil || e.Enrich.PersonID == "":
		return fmt.Errorf("%s event for %q has no person", e.Kind, e.Address)
	case e.Enrich.Credits < 0:
		return fmt.Errorf("%s event for %q: credits %d is negative", e.Kind, e.Address, e.Enrich.Credits)
	case e.Address == "":
		return fmt.Errorf("%s event has no address", e.Kind)
	}
	return nil
}

// foldUnknown records an enrichment with an unknown outcome; it does not
// touch the person (nothing of them is known from it).
func (s *State) foldUnknown(e Event) {
	if s.UnknownEnrichments == nil {
		s.UnknownEnrichments = map[string]*UnknownEnrichment{}
	}
	msg := ""
	if e.Failure != nil {
		msg = e.Failure.Message
	}
	// The call's pending note counted its credits already: the failure
	// replaces that count, never adds to it.
	s.settlePending(e.Enrich.PersonID)
	s.UnknownEnrichments[e.Enrich.PersonID] = &UnknownEnrichment{At: e.At, By: e.Address, Credits: e.Enrich.Credits, Message: msg}
	s.Usage.CreditsUnknown += e.Enrich.Credits
	s.touchMeta()
	s.touchUsage()
}

// settlePending takes the credits of a pending enrichment of the people
// ids out of Usage.CreditsUnknown and marks it no longer pending: its call
// has an outcome now (charged and counted as spent, certainly not charged,
// or unknown and counted again by foldUnknown). A caller that settles
// drops or replaces the entry.
func (s *State) settlePending(ids ...string) {
	for _, id := range ids {
		u := s.UnknownEnrichments[id]
		if u == nil || !u.Pending {
			continue
		}
		s.Usage.CreditsUnknown = max(0, s.Usage.CreditsUnknown-u.Credits)
		u.Pending = false
		s.touchMeta()
		s.touchUsage()
	}
}

// resolveUnknown forgets the unknown outcome of a person who has now been
// enriched: from here on their enrichment counts.
func (s *State) resolveUnknown(ids ...string) {
	for _, id := range ids {
		if _, ok := s.UnknownEnrichments[id]; ok {
			delete(s.UnknownEnrichments, id)
			s.touchMeta()
		}
	}
}

// UnknownBy returns the people whose enrichment by enrich block addr has
// an unknown outcome and who hold no enrichment since.
func (s *State) UnknownBy(addr string) []string {
	var out []string
	for id, u := range s.UnknownEnrichments {
		if u.By != addr {
			continue
		}
		if p := s.People[id]; p != nil && p.Enrichment != nil {
			continue
		}
		out = append(out, id)
	}
	return out
}

// EventEnrichPending is written before an enrichment is sent: until the
// journal holds its outcome, it may have been charged. A run killed with
// the call in flight leaves it so, and state keeps it as an unknown
// enrichment whose credits count in Usage.CreditsUnknown ("may have been
// charged") until the call's outcome settles them. Its Enrich names the
// person and the credits at stake.
const EventEnrichPending EventKind = "enrich_pending"

// EventEnrichVoid ends a pending enrichment that certainly charged nothing
// (not sent, refused with 4xx, a 5xx): the unknown enrichment is dropped.
const EventEnrichVoid EventKind = "enrich_void"

// pendingMessage is the message of an unknown enrichment left pending.
const pendingMessage = "sent, and no outcome recorded: the run ended while it was in flight"

// foldPending records an enrichment about to be sent: it may be charged
// from now on, so its credits count as unknown until its outcome. An
// unknown enrichment of the person already there (a run killed with their
// enrichment in flight, or a failure of an earlier run) stays counted: a
// person is sent once per run, so a pending one here is not this call's.
func (s *State) foldPending(e Event) {
	if s.UnknownEnrichments == nil {
		s.UnknownEnrichments = map[string]*UnknownEnrichment{}
	}
	s.UnknownEnrichments[e.Enrich.PersonID] = &UnknownEnrichment{At: e.At, By: e.Address, Credits: e.Enrich.Credits, Message: pendingMessage, Pending: true}
	s.Usage.CreditsUnknown += e.Enrich.Credits
	s.touchMeta()
	s.touchUsage()
}

// SetAsidePendingSince takes out of the unknown enrichments those noted
// pending at or after since and still pending: the enrichments in flight
// of an apply that is running now and took the state's lock at since.
// They are not outcomes of an earlier run, and their credits are being
// spent now; the apply records what became of them. It returns how many
// there were and their credits. It is for a state read while that apply
// runs (plan, show), never for one to be written.
func (s *State) SetAsidePendingSince(since time.Time) (n, credits int) {
	for id, u := range s.UnknownEnrichments {
		if !u.Pending || u.At.Before(since) {
			continue
		}
		n++
		credits += u.Credits
		s.Usage.CreditsUnknown = max(0, s.Usage.CreditsUnknown-u.Credits)
		delete(s.UnknownEnrichments, id)
	}
	return n, credits
}
