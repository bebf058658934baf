package local

import (
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

var _ backend.ReuseKeys = (*Workspace)(nil)

// EnrichedKeysElsewhere lists the lookup keys of the people every other
// workspace holds an enrichment of (eachOtherKeys): of a database
// narrowly, its enrichments' IDs and those people's page names and
// network IDs alone, as a PostgreSQL backend's query does.
func (ws *Workspace) EnrichedKeysElsewhere() ([]string, error) {
	var keys []string
	err := ws.eachOtherKeys(func(_ string, listed []string, _ map[string]*state.Person) {
		keys = append(keys, listed...)
	})
	if err != nil {
		return nil, err
	}
	return keys, nil
}
