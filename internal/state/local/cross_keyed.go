package local

import (
	"github.com/leadsync/leadsync/internal/state"
)

// maxKeyedAsk is the most keys EnrichmentsElsewhere finds the people of
// by their indexes in another workspace's database (keyedPeople); past
// it, it reads every person there holding an enrichment
// (enrichedPeople). A plan whose block's limit leaves no place asks only
// about the people it reads (plan.reuseReads), a few keys among a
// workspace of millions.
var maxKeyedAsk = 1 << 19

// keyedPeople returns a reader of the people of a database one of whose
// lookup keys (state.LookupKeys) is among keys, and perhaps a few more
// (state.Base.Keyed): by their indexes (network ID, page key), read whole
// by ID. It reads those holding an enrichment (enrichedPeople) when the
// store cannot find people by their keys.
func keyedPeople(keys []string) func(*state.Base) (map[string]*state.Person, error) {
	return func(b *state.Base) (map[string]*state.Person, error) {
		ids, ok, err := b.Keyed(keys)
		if err != nil {
			return nil, err
		}
		if !ok {
			return enrichedPeople(b)
		}
		return readWhole(b, ids)
	}
}
