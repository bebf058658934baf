package run

import (
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// reuseLookup is how plan and apply find the enrichments the backend's
// other workspaces hold (backend.CrossWorkspace), nil when its workspaces
// share nothing, or when there is no other workspace: then nothing can be
// reused, and the plan need not gather the keys of every person its
// enrich blocks may enrich (0.6 s of CPU at 600,000 people).
func reuseLookup(b backend.Backend) plan.ReuseLookup {
	cw, ok := backend.CrossWorkspaceOf(b)
	if !ok {
		return nil
	}
	if others, err := cw.OtherWorkspaces(); err == nil && len(others) == 0 {
		return nil
	}
	return cw.EnrichmentsElsewhere
}
