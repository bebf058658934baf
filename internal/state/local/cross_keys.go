package local

import (
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

var _ backend.ReuseKeys = (*Workspace)(nil)

// EnrichedKeysElsewhere reads the people every other workspace holds an
// enrichment of, as EnrichmentsElsewhere does, and returns the lookup keys of the people
// holding an enrichment there.
func (ws *Workspace) EnrichedKeysElsewhere() ([]string, error) {
	var keys []string
	err := ws.eachOtherEnriched(func(_ string, people map[string]*state.Person) {
		for _, p := range people {
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
