package engine

import (
	"time"

	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
)

// Call is one call the executor makes.
type Call struct {
	Seq int // 1-based, in order of start
	// Kind is the kind of the block that makes the call: a search (a
	// search or one sub-search of a split search), a profile, an enrich
	// block (one enrichment) or a track (one profile read).
	Kind    kind.Kind
	Address string // instance address, or enrich or track block address
	// Person is the person ID of an enrich call or a track read.
	Person string
	// Page is the page name sent by an enrich call or a profile or track read.
	Page string
	// Label is a short human description ("keywords=CTO city=Berlin", a name).
	Label string
	// SubSearch is set for a sub-search of a split search: the filters it
	// adds to the search, like industryFilter=["Consulting"]; "" for the
	// search itself and for every other call.
	SubSearch string
}

// CallResult describes a completed call.
type CallResult struct {
	Duration time.Duration
	// Results is the number of leads a search returned (before max_results).
	Results int
	// Capped is true when a search returned exactly the network's cap (for
	// a split search: a sub-search still at the cap after the last
	// dimension).
	Capped bool
	// SplitNext is set when a (sub-)search of a split search is at the cap
	// and is split further: the next dimension, under the configuration's
	// name (industry_filter).
	SplitNext string
	// Credits spent by the call.
	Credits int
	// Status is the e-mail validation status of an enrichment.
	Status string
	// Jobs are the job changes the call saw (a track read, a profile
	// read, a search or an enrichment that brought a new title or company).
	Jobs []JobChange
	// Left and Private are set when a track read found the profile gone
	// (the person left the network) or private.
	Left, Private bool
}

// Progress receives the executor's events. Implementations must be safe to
// call from one goroutine at a time (the executor never calls concurrently).
type Progress interface {
	// Start is called once with the plan's bounds.
	Start(p *plan.Plan, callsMax, creditsMax int)
	// CallStart is called when a call is handed to the service.
	CallStart(c Call)
	// CallDone is called after the result is safely in the journal.
	CallDone(c Call, r CallResult)
	// CallError is called when a call failed for good (after retries).
	CallError(c Call, err error)
	// Stopping is called when the run stops starting calls (interrupt, 403).
	Stopping(reason string)
	// Summary is called once at the end.
	Summary(s *Summary)
}

// NopProgress discards every event.
type NopProgress struct{}

var _ Progress = NopProgress{}

func (NopProgress) Start(*plan.Plan, int, int) {}
func (NopProgress) CallStart(Call)             {}
func (NopProgress) CallDone(Call, CallResult)  {}
func (NopProgress) CallError(Call, error)      {}
func (NopProgress) Stopping(string)            {}
func (NopProgress) Summary(*Summary)           {}
