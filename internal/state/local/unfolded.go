package local

import "os"

// Unfolded reports whether the state the last Load gave holds calls of an
// interrupted apply the stored state does not (the backend.Unfolder
// ability): recorded calls the database's load applied, or a JSON
// state's journal.
func (store *Store) Unfolded() bool {
	if store.db != nil {
		return store.db.unfolded()
	}
	_, err := os.Stat(store.JournalPath())
	return err == nil
}

// unfolded reports whether the last load applied recorded calls that no
// write has folded in since.
func (d *dbStore) unfolded() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.seenN > 0
}
