package backend

// ReuseKeys is a CrossWorkspace that lists what its other workspaces may
// give: the lookup keys (state.LookupKeys) of every person another
// workspace holds an enrichment of. A plan of enrich blocks then reads
// whole only the people of this workspace those keys find, rather than
// asking about every person it may enrich (plan.Options.ReuseHeld).
type ReuseKeys interface {
	// EnrichedKeysElsewhere are those keys, each once or more, in no
	// order, read without any lock, as EnrichmentsElsewhere reads.
	EnrichedKeysElsewhere() ([]string, error)
}

// ReuseKeysOf returns b (or the backend it wraps) as a ReuseKeys.
func ReuseKeysOf(b Backend) (ReuseKeys, bool) { return abilityOf[ReuseKeys](b) }
