package local

import "os"

// Unfolded reports whether the state the last Load gave holds calls of an
// interrupted apply the stored state does not (the backend.Unfolder
// ability): recorded calls the database's load applied, or a JSON
// state's journal.
func (store *Store) Unfolded() bool {
	if store.db != nil {
		return store.db.unfolded() > 0
	}
	_, err := os.Stat(store.JournalPath())
	return err == nil
}

// UnfoldedCalls is how many such calls the last Load applied (the
// backend.Unfolder ability): the database's recorded calls, or the
// journal's events the state file did not hold yet.
func (store *Store) UnfoldedCalls() int {
	if store.db != nil {
		return store.db.unfolded()
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	return store.replayed
}

// unfolded is how many recorded calls the last load applied that no
// write has folded in since.
func (d *dbStore) unfolded() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.seenN == 0 {
		return 0
	}
	return d.seenCalls
}
