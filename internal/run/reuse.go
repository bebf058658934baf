package run

import (
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// reuseLookup is how plan and apply find the enrichments the backend's
// other workspaces hold (backend.CrossWorkspace), nil when its workspaces
// share nothing.
func reuseLookup(b backend.Backend) plan.ReuseLookup {
	cw, ok := backend.CrossWorkspaceOf(b)
	if !ok {
		return nil
	}
	return cw.EnrichmentsElsewhere
}
