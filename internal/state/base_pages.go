package state

// FindsPages reports whether b's store finds people by page name through
// its index (PageFinder): Paged answers. A state read whole, or a store
// without that index, does not.
func (b *Base) FindsPages() bool {
	_, ok := b.store.(PageFinder)
	return ok
}

// Paged are the IDs of the people of b's store whose page name is one of
// pages in any letter case (PageKey), in no order: every person a page
// name finds (State.Resolve, State.Person). FindsPages must hold.
func (b *Base) Paged(pages []string) ([]string, error) {
	keys := make([]string, 0, len(pages))
	seen := map[string]bool{}
	for _, page := range pages {
		if k := PageKey(page); page != "" && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	return b.store.(PageFinder).Paged(keys)
}
