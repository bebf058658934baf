package run

import (
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
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

// reuseHeld lists the lookup keys of every person the backend's other
// workspaces hold an enrichment of (backend.ReuseKeys), so that a plan
// with reuse reads whole only the people they name
// (plan.Options.ReuseHeld); nil when reuseLookup is, or the backend does
// not list them.
func reuseHeld(b backend.Backend) func() ([]string, error) {
	rk, ok := backend.ReuseKeysOf(b)
	if !ok || reuseLookup(b) == nil {
		return nil
	}
	return rk.EnrichedKeysElsewhere
}

// reuseOnce is reuseLookup and reuseHeld for one plan: when the backend
// reads its other workspaces once for both (backend.ReuseOnce: the local
// backend loads each state file whole), the keys and the lookups come
// from that one read, and the lookup's errors reach the plan. The lookup
// asks the backend itself until the keys were listed (a plan over the
// state loaded whole), or when the read kept nothing. An apply's engine
// asks reuseLookup: a run outlives the read.
func reuseOnce(b backend.Backend) (plan.ReuseLookup, func() ([]string, error)) {
	lookup, held := reuseLookup(b), reuseHeld(b)
	ro, ok := backend.ReuseOnceOf(b)
	if !ok || held == nil {
		return lookup, held
	}
	var kept plan.ReuseLookup
	once := func() ([]string, error) {
		keys, l, err := ro.ElsewhereOnce()
		kept = l
		return keys, err
	}
	answer := func(keys []string) (map[string]state.Reusable, error) {
		if kept != nil {
			return kept(keys)
		}
		return lookup(keys)
	}
	return answer, once
}
