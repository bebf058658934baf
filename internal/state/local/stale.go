package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// breakDeadLock removes the lock file when it still holds the lock of
// dead, a process of this host that no longer runs, so that the caller can
// take the lock. It moves the file aside under a name of its own first and
// checks what it moved: a lock another process took meanwhile is put back.
// It reports whether the dead lock is gone.
func (store *Store) breakDeadLock(dead *backend.LockInfo) bool {
	aside := store.LockPath() + ".stale-" + state.NewUUID()
	if err := os.Rename(store.LockPath(), aside); err != nil {
		return errors.Is(err, fs.ErrNotExist) // someone else broke it
	}
	b, err := os.ReadFile(aside)
	var moved backend.LockInfo
	if err == nil && json.Unmarshal(b, &moved) == nil && moved.ID == dead.ID {
		os.Remove(aside)
		safefile.SyncDir(filepath.Dir(store.path))
		return true
	}
	// Not the dead lock: a live process took the lock in between. Put it
	// back where it was (nobody can have taken it since: the file was
	// absent only for a moment, and Lock links, never overwrites).
	if err := os.Link(aside, store.LockPath()); err == nil {
		os.Remove(aside)
	}
	return false
}

// staleNote is the one line said when a dead holder's lock was broken.
func staleNote(dead *backend.LockInfo) string {
	return fmt.Sprintf("removed the stale state lock of %s (pid %d, %q since %s): that process no longer runs on this host",
		dead.Who, dead.PID, dead.Operation, dead.Created.UTC().Format("2006-01-02 15:04:05 MST"))
}
