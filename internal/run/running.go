package run

import (
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// Running is the run that holds the state's lock while a command reads
// the state without it (plan, show): who, since when, and, for an apply,
// the enrichments it has in flight now.
type Running struct {
	Holder *backend.LockInfo
	// InFlight and InFlightCredits count the enrichments the apply has
	// sent and not yet recorded an outcome for: they are being charged
	// now, and the apply records what became of them.
	InFlight, InFlightCredits int
}

// RunningOn returns the run that holds b's lock and is alive
// (backend.LiveLockHolder), nil when none does or b cannot tell. The enrichments an apply
// has in flight are set aside from st, the state read from b: they are no
// unknown outcomes of an earlier run.
func RunningOn(b backend.Backend, st *state.State) *Running {
	h := backend.LiveLockHolder(b)
	if h == nil {
		return nil
	}
	r := &Running{Holder: h}
	if h.Operation == "apply" {
		r.InFlight, r.InFlightCredits = st.SetAsidePendingSince(h.Created)
	}
	return r
}

// Warning is the plan's warning that r runs, as of now.
func (r *Running) Warning(now time.Time) *hcl.Diagnostic {
	h := r.Holder
	detail := fmt.Sprintf("%s (pid %d on %s) has been running leadsync %s on this state since %s (%s ago). "+
		"This plan is of the state as that run has recorded it so far: ",
		h.Who, h.PID, h.Host, h.Operation, h.Created.UTC().Format("2006-01-02 15:04:05 MST"), textfmt.Age(now.Sub(h.Created)))
	if h.Operation == "apply" {
		detail += "what it has not recorded yet is counted here as still to be made"
		if n := r.InFlight; n > 0 {
			them, are := "them", "they are no failures"
			if n == 1 {
				them, are = "it", "it is no failure"
			}
			detail += fmt.Sprintf(", %s in flight now among it (%s being spent; what became of %s is not known yet, and %s of an earlier run)",
				textfmt.Plural(n, "enrichment"), textfmt.Plural(r.InFlightCredits, "credit"), them, are)
		}
		detail += ". "
	} else {
		detail += "what it changes is not in it yet. "
	}
	detail += "Plan again once it has ended."
	return &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: fmt.Sprintf("leadsync %s is running on this state", h.Operation), Detail: detail}
}
