package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/leadsync/leadsync/internal/filelock"
	"github.com/leadsync/leadsync/internal/safefile"
)

// lockedFile is a JSON file the workspaces of a working copy share (the
// budget's ledger, the erasure record), read and changed under the lock
// of path+".lock". A file that cannot be read is an error, never an empty
// one.
type lockedFile struct {
	path    string
	what    string // "the budget ledger"
	damaged string // what to do about a damaged file, for its error
	format  int    // the format_version this build writes
	// lazy: a read of a missing file makes no folder or lock file.
	lazy bool
}

// updateLocked reads lf into a T under its lock, lets change edit it, and
// writes it back (with lf's format, which version points at) when change
// says so.
func updateLocked[T any](lf lockedFile, version func(*T) *int, change func(*T) bool) error {
	var f T
	if _, err := os.Stat(lf.path); lf.lazy && errors.Is(err, fs.ErrNotExist) && !change(&f) {
		return nil
	}
	if err := safefile.EnsureDir(filepath.Dir(lf.path)); err != nil {
		return err
	}
	lk, err := os.OpenFile(lf.path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer lk.Close()
	if err := filelock.Lock(lk); err != nil {
		return err
	}
	defer filelock.Unlock(lk)
	f = *new(T)
	b, err := os.ReadFile(lf.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("reading %s %s: %w", lf.what, lf.path, safefile.UnwrapPathErr(err))
	default:
		if err := json.Unmarshal(b, &f); err != nil {
			return fmt.Errorf("%s %s is damaged (%v): %s", lf.what, lf.path, err, lf.damaged)
		}
		if v := *version(&f); v > lf.format {
			return fmt.Errorf("%s %s was written by a newer leadsync (format %d); upgrade leadsync", lf.what, lf.path, v)
		}
	}
	if !change(&f) {
		return nil
	}
	*version(&f) = lf.format
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(lf.path, append(out, '\n'))
}
