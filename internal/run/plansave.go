package run

import (
	"path/filepath"

	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

// SavePlan saves p to path (relative to dir) for a later "leadsync apply
// PATH", which runs exactly it.
func SavePlan(dir, path string, p *plan.Plan) error {
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	return plan.Save(path, p)
}

// EarlyState is the state file at one path, loading in the background
// since EarlyLoad: plan reads the state at its usual path while the
// configuration is parsed (on large states the two take about as long),
// and uses it only if the configuration names that path.
type EarlyState struct {
	path    string
	backend state.Backend
}

// EarlyLoad starts loading the state file at path now.
func EarlyLoad(path string) *EarlyState {
	return &EarlyState{path: path, backend: Preload(state.Local(path))}
}

// For returns the early-loaded backend when path is the one it loads, and
// b otherwise (also when e is nil).
func (e *EarlyState) For(path string, b state.Backend) state.Backend {
	if e == nil || path != e.path {
		return b
	}
	return e.backend
}
