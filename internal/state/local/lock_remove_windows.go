//go:build windows

package local

import (
	"io"
	"os"
)

// removeHeldLock empties the lock file instead of removing it: Windows
// cannot remove a file that is open (Go opens files without
// FILE_SHARE_DELETE). An empty lock file reads as no lock, and the next
// Lock takes it over.
func removeHeldLock(f *os.File, _ string) error { return f.Truncate(0) }

// replaceHeldLock writes this run's details (in f) into old, the lock file
// of a run that died (or an empty one), whose OS lock is held: Windows
// cannot rename over a file that is open. old then holds the lock; f is
// closed (Lock removes its name).
func (store *Store) replaceHeldLock(old, f *os.File) (*os.File, error) {
	info, err := readLockInfo(f)
	if err != nil || info == nil {
		return nil, io.ErrUnexpectedEOF
	}
	if err := store.writeLockInfo(old, *info); err != nil {
		return nil, err
	}
	f.Close()
	return old, nil
}
