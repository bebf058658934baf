package engine

import (
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// reuse copies, before block e claims anyone, the enrichments other
// workspaces of the backend hold of its people (plan.Candidates.Reuses):
// one journalled event each, no call, no credit. A person copied is
// enriched as far as every block is concerned, so no block pays for them.
func (r *runner) reuse(e *config.Enrich) error {
	r.mu.Lock()
	reuses, err := r.cands.Reuses(r.st, e, r.planTime())
	r.mu.Unlock()
	if err != nil {
		return err
	}
	for _, ru := range reuses {
		if _, claimed := r.claimed[ru.PersonID]; claimed {
			continue // queued or made by another block in this run
		}
		ev := &state.Event{At: r.now(), Kind: state.EventReuse, Address: e.Address,
			Reuse: &state.ReuseEvent{PersonID: ru.PersonID, Workspace: ru.From.Workspace, Enrichment: ru.From.Enrichment}}
		if err := r.record(ev); err != nil {
			r.fatal = err
			r.halt(err.Error())
			return nil
		}
		r.changes++
		if r.sum.Reused == nil {
			r.sum.Reused = map[string]int{}
		}
		r.sum.Reused[ru.From.Workspace]++
	}
	return nil
}
