//go:build !windows

package local

import "os"

// removeHeldLock removes the lock file at path while f, its open file,
// still holds the OS lock.
func removeHeldLock(_ *os.File, path string) error { return os.Remove(path) }

// replaceHeldLock puts the lock file f (this run's details, OS-locked) in
// place of old, the lock file of a run that died, while old's OS lock is
// held; f then holds the lock.
func (store *Store) replaceHeldLock(_, f *os.File) (*os.File, error) {
	if err := os.Rename(f.Name(), store.LockPath()); err != nil {
		return nil, err
	}
	return f, nil
}
