package state

// LeadPager is a store that reads some lead fields of every person alone,
// a page at a time, in ID order: the console's where on lead.<field>
// (run.ConsoleSession) reads the columns of the fields it names, not
// every person whole. The SQL stores give it.
type LeadPager interface {
	// LeadsAfter reads up to n people whose IDs sort after id (byte
	// order), in that order, each holding its ID and the lead fields of
	// keys (person.LeadFields' keys) alone; fewer than n at the end.
	LeadsAfter(id string, n int, keys []string) ([]*Person, error)
}

// EachLead calls fn with every person in ID order (byte order), a page of
// the store in memory at a time, as EachPerson does. From a store that is
// a LeadPager each holds its ID and the lead fields of keys alone; else
// it is read whole. The keys must name lead fields a where reads
// (SketchFields). It stops at fn's first error and returns it.
func (b *Base) EachLead(keys []string, fn func(*Person) error) error {
	if _, err := SketchFields(keys); err != nil {
		return err
	}
	l, ok := b.store.(LeadPager)
	if !ok {
		return b.EachPerson(fn)
	}
	return eachPage(b.pageSize(), func(after string, n int) ([]*Person, error) {
		return l.LeadsAfter(after, n, keys)
	}, fn)
}

// eachPage calls fn with each person of the pages of n that after gives,
// from the first, each page after the last ID of the one before, until a
// page holds fewer than n; it stops at the first error.
func eachPage(n int, after func(id string, n int) ([]*Person, error), fn func(*Person) error) error {
	last := ""
	for {
		ps, err := after(last, n)
		if err != nil {
			return err
		}
		for _, p := range ps {
			if err := fn(p); err != nil {
				return err
			}
		}
		if len(ps) < n {
			return nil
		}
		last = ps[len(ps)-1].ID
	}
}
