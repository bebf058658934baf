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
	var keys []string
	err := ws.eachOtherState(func(_ string, s *state.State) {
		for _, p := range s.People {
			if p != nil && p.Enrichment != nil {
				keys = append(keys, state.LookupKeys(p)...)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return keys, nil
}
