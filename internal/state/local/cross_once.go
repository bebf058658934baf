package local

import (
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

var _ backend.ReuseOnce = (*Workspace)(nil)

// maxOnceKeys is the most lookup keys ElsewhereOnce keeps the answers of
// (a variable for tests). A plan past 400,000 keys reads every person
// and asks about each: the other workspaces are then read again rather
// than held.
var maxOnceKeys = 1 << 19

// ElsewhereOnce loads each other workspace's state whole once, as
// EnrichedKeysElsewhere does, and keeps, per lookup key, the newest
// enrichment one of them holds (collectReusable over every key): the
// answers EnrichmentsElsewhere would give from that load. The states
// themselves are let go.
func (ws *Workspace) ElsewhereOnce() ([]string, func([]string) map[string]state.Reusable, error) {
	held := map[string]state.Reusable{}
	err := ws.eachOtherState(func(name string, s *state.State) {
		collectReusable(s, name, nil, held)
	})
	if err != nil {
		return nil, nil, err
	}
	keys := make([]string, 0, len(held))
	for k := range held {
		keys = append(keys, k)
	}
	if len(keys) > maxOnceKeys {
		return keys, nil, nil
	}
	lookup := func(want []string) map[string]state.Reusable {
		out := map[string]state.Reusable{}
		for _, k := range want {
			if r, ok := held[k]; ok {
				out[k] = r
			}
		}
		return out
	}
	return keys, lookup, nil
}
