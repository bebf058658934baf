package local

import (
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

var _ backend.ReuseKeys = (*Workspace)(nil)

// EnrichedKeysElsewhere reads every other workspace's state, as
// EnrichmentsElsewhere does, and returns the lookup keys of the people
// holding an enrichment there.
func (ws *Workspace) EnrichedKeysElsewhere() ([]string, error) {
	others, err := ws.OtherWorkspaces()
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, name := range others {
		sib, err := ws.set.Open(name)
		if err != nil {
			return nil, err
		}
		s, err := sib.loadSettled()
		if err != nil {
			return nil, err
		}
		for _, p := range s.People {
			if p != nil && p.Enrichment != nil {
				keys = append(keys, state.LookupKeys(p)...)
			}
		}
	}
	return keys, nil
}
