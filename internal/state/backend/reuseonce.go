package backend

import "github.com/leadsync/leadsync/internal/state"

// ReuseOnce is a ReuseKeys that answers both questions of one plan from
// one read of its other workspaces: the keys ReuseKeys lists, then the
// enrichments EnrichmentsElsewhere gives for the keys of the people the
// plan reads. The local backend loads each other workspace whole for
// either question; asked apart, it loaded them twice.
type ReuseOnce interface {
	// ElsewhereOnce reads the other workspaces once, as
	// EnrichedKeysElsewhere reads them, and returns those keys and a
	// lookup answering as EnrichmentsElsewhere would have at that read.
	// lookup may read again what the first read did not keep (another
	// workspace listed narrowly), and returns the error of that read: a
	// reuse missed is an enrichment paid again. It is nil when the read
	// holds too much to be kept, or keeps nothing the lookup could use:
	// the caller then asks EnrichmentsElsewhere.
	ElsewhereOnce() (keys []string, lookup func(keys []string) (map[string]state.Reusable, error), err error)
}

// ReuseOnceOf returns b (or the backend it wraps) as a ReuseOnce.
func ReuseOnceOf(b Backend) (ReuseOnce, bool) { return abilityOf[ReuseOnce](b) }
