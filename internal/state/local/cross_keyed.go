package local

import (
	"iter"
	"slices"

	"github.com/leadsync/leadsync/internal/state"
)

// maxKeyedAsk is the most keys EnrichmentsElsewhere finds the people of
// by their indexes in another workspace's database (keyedPeople); past
// it, it reads every person there holding an enrichment
// (enrichedPeople). A plan whose block's limit leaves no place asks only
// about the people it reads (plan.reuseReads), a few keys among a
// workspace of millions.
var maxKeyedAsk = 1 << 19

// keyedPeople returns the reader of the people of a database one of
// whose lookup keys (state.LookupKeys) is among keys, and perhaps a few
// more (state.Base.Keyed): found by their indexes (network ID, page
// key), their keys and enrichments read alone by ID (readKeyed). It
// reads those holding an enrichment (enrichedPeople) when the store
// cannot find people by their keys.
func keyedPeople(keys []string) peopleReader {
	return func(b *state.Base, do func(iter.Seq[*state.Person])) error {
		ids, ok, err := b.Keyed(keys)
		if err != nil {
			return err
		}
		if !ok {
			return enrichedPeople(b, do)
		}
		// In ID order (Keyed sorts them), each page of them reads a
		// stretch of the tables' pages, not pages all over them.
		return readKeyed(b, ids, do)
	}
}

// readKeyed gives do the people of ids holding an enrichment, a page at
// a time, each holding its keys' fields and its enrichment alone
// (state.Base.KeyedEnrichments). A variable: tests count the reads of
// another workspace's enrichments, which listing its keys must not make.
var readKeyed = func(b *state.Base, ids []string, do func(iter.Seq[*state.Person])) error {
	return b.KeyedEnrichments(ids, func(page []*state.Person) error {
		do(slices.Values(page))
		return nil
	})
}
