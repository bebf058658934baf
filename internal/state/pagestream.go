package state

// PageStreamer is a PeopleStore that may read many pages of people in one
// pass, sooner than a question a page: PostgreSQL sends the pages'
// queries together on a connection of its own, in the store's snapshot,
// and the rows are read as they come.
type PageStreamer interface {
	// StreamsPages reports whether StreamPages can run on this store.
	StreamsPages() bool
	// StreamPages reads the people of each list of IDs next gives (false:
	// none left), in that order, and hands fn each list's people that
	// exist (with their enrichments and histories, in no order) until fn
	// returns false. next may be asked for a few lists before fn is given
	// the first. An error ends it, after the lists it gave.
	StreamPages(next func() ([]string, bool), fn func([]*Person) bool) error
}

// StreamsPages reports whether b reads pages of people in one pass
// (StreamPeople) rather than a question a page.
func (b *Base) StreamsPages() bool {
	st, ok := b.store.(PageStreamer)
	return ok && st.StreamsPages()
}

// StreamPeople reads the people of each list of IDs next gives, in order,
// in one pass (StreamsPages must be true), and hands fn each list's people
// by ID (those that exist) until fn returns false. Nothing else may read
// b while it runs. An error ends it, after the lists it gave: the caller
// may read the rest with People, which reports the error if it stays.
func (b *Base) StreamPeople(next func() ([]string, bool), fn func(map[string]*Person) bool) error {
	return b.store.(PageStreamer).StreamPages(next, func(ps []*Person) bool {
		out := make(map[string]*Person, len(ps))
		for _, p := range ps {
			out[p.ID] = p
		}
		return fn(out)
	})
}

// existPages is how many pages of IDs Exist asks a store that streams
// pages (StreamsPages) about at a time: its question is one query of an
// index, and each question is a round trip to the server.
const existPages = 25

// ExistPage is how many IDs Exist asks the store about at a time.
func (b *Base) ExistPage() int {
	if b.StreamsPages() {
		return existPages * b.pageSize()
	}
	return b.pageSize()
}

// LeadLists reads the lead lists of the searches at addrs that the
// records were read without (LeadIDs), by address: at once where the
// store can (LeadLister). A search whose list the records hold is left
// out (LeadIDs gives it without a question).
func (b *Base) LeadLists(addrs []string) (map[string][]string, error) {
	return b.leadLists(addrs)
}
