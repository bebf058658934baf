package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"time"

	"github.com/leadsync/leadsync/internal/filelock"
	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/version"
)

// The lock of a state file is <path>.lock, held open with the operating
// system's lock on it (internal/filelock: flock, LockFileEx), and holding
// the holder's details (backend.LockInfo, JSON) for the message of a run
// refused. The kernel releases the lock when its holder exits in any way,
// kill -9 included: the next Lock takes it at once, and says in one line
// whose details it replaced. A clean Unlock removes the file while still
// holding the lock, so the file exists only while a run holds it (or after
// a run that died). Where the platform has no such lock (filelock.Supported
// is false) the file's existence is the lock, made with O_EXCL, and the
// lock of a run that died stays until force-unlock removes it.

// Lock is a held state lock.
type Lock struct {
	store *Store
	f     *os.File // the lock file, with the OS lock on it
	Info  backend.LockInfo
	// Broken is the lock of a run that ended without unlocking (its
	// details were still in the file, its OS lock gone), which this lock
	// replaced; nil when there was none.
	Broken *backend.LockInfo
}

func (store *Store) host() string {
	if store.Host != nil {
		return store.Host()
	}
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "unknown-host"
	}
	return h
}

func (store *Store) user() string {
	if store.User != nil {
		return store.User()
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "unknown"
}

func (store *Store) pid() int {
	if store.PID != 0 {
		return store.PID
	}
	return os.Getpid()
}

// newLockInfo describes this process holding the lock for op.
func (store *Store) newLockInfo(op string) backend.LockInfo {
	host := store.host()
	return backend.LockInfo{
		ID:        state.NewUUID(),
		Operation: op,
		Who:       store.user() + "@" + host,
		Host:      host,
		PID:       store.pid(),
		Created:   store.now().UTC().Truncate(time.Second),
		Version:   version.String(),
	}
}

// Lock takes the state lock for op (e.g. "apply"). When another run holds
// it, the error is a *LockedError naming the holder. The lock file is made
// complete (with this run's details, synced, OS-locked) under a temporary
// name and linked into place, so that the file at the lock's path always
// names its holder; the lock of a run that died is taken over, with a note
// (Notify).
func (store *Store) Lock(op string) (*Lock, error) {
	dir := filepath.Dir(store.path)
	if err := safefile.EnsureDir(dir); err != nil {
		return nil, &safefile.WriteError{Path: store.LockPath(), Err: err}
	}
	l := &Lock{store: store, Info: store.newLockInfo(op)}
	f, err := store.newLockFile(l.Info)
	if err != nil {
		return nil, err
	}
	if l.f, l.Broken, err = store.placeLock(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	os.Remove(f.Name()) // linked: the temporary name goes
	safefile.SyncDir(dir)
	store.removeStaleTemps()
	if l.Broken != nil && store.Notify != nil {
		store.Notify(store.staleNote(l.Broken))
	}
	return l, nil
}

// newLockFile writes info to a temporary file beside the lock, synced, and
// takes the OS lock on it.
func (store *Store) newLockFile(info backend.LockInfo) (*os.File, error) {
	f, err := os.CreateTemp(filepath.Dir(store.path), "."+filepath.Base(store.LockPath())+".tmp-*")
	if err != nil {
		return nil, &safefile.WriteError{Path: store.LockPath(), Err: err}
	}
	if err = f.Chmod(0o600); err == nil {
		if err = filelock.TryLock(f); err == nil {
			err = store.writeLockInfo(f, info)
		}
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, &safefile.WriteError{Path: store.LockPath(), Err: err}
	}
	return f, nil
}

// placeLock puts the lock file f at the lock's path and returns the file
// that holds the lock there (f, or on Windows the file taken over), with
// the details of a run that died when its lock was taken over.
func (store *Store) placeLock(f *os.File) (*os.File, *backend.LockInfo, error) {
	for range 100 {
		err := os.Link(f.Name(), store.LockPath())
		switch {
		case err == nil:
			return f, nil, nil
		case !errors.Is(err, fs.ErrExist):
			// No hard links on this file system: take the lock on the
			// file at the path itself.
			return store.lockInPlace(f)
		case !filelock.Supported:
			return nil, nil, store.lockedError() // the file's existence is the lock
		}
		held, prev, err := store.takeOver(f)
		if !errors.Is(err, errLockMoved) {
			return held, prev, err
		}
	}
	return nil, nil, fmt.Errorf("cannot take the state lock %s: the file keeps being replaced (by many runs at once?)", store.LockPath())
}

// errLockMoved says the lock file was removed or replaced while it was
// being looked at: try again.
var errLockMoved = errors.New("the lock file moved")

// takeOver takes the lock from the file at the lock's path when no live
// run holds it (a run that died left it): the file's details are
// returned, and f replaces it while its OS lock is held, so that no other
// run can take the lock on a file about to go. A live holder gives a
// *LockedError.
func (store *Store) takeOver(f *os.File) (*os.File, *backend.LockInfo, error) {
	old, err := os.OpenFile(store.LockPath(), os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, errLockMoved // unlocked meanwhile
	}
	if err != nil {
		return nil, nil, &safefile.WriteError{Path: store.LockPath(), Err: err}
	}
	if err := filelock.TryLock(old); err != nil {
		old.Close()
		if errors.Is(err, filelock.ErrLocked) {
			return nil, nil, store.lockedError()
		}
		return nil, nil, &safefile.WriteError{Path: store.LockPath(), Err: err}
	}
	if !store.isLockFile(old) {
		old.Close()
		return nil, nil, errLockMoved
	}
	prev, _ := readLockInfo(old)
	held, err := store.replaceHeldLock(old, f)
	if held != old {
		old.Close() // after the replacement: its lock held till then
	}
	if err != nil {
		return nil, nil, &safefile.WriteError{Path: store.LockPath(), Err: err}
	}
	return held, prev, nil
}

// lockInPlace is Lock where hard links cannot be made: the OS lock is
// taken on the file at the path (made when missing), then this run's
// details (in f) are written into it. A run refused in between finds no
// details yet and says the holder is just starting.
func (store *Store) lockInPlace(f *os.File) (*os.File, *backend.LockInfo, error) {
	info, err := readLockInfo(f)
	if err != nil || info == nil {
		return nil, nil, &safefile.WriteError{Path: store.LockPath(), Err: fmt.Errorf("reading back %s: %v", f.Name(), err)}
	}
	for range 100 {
		held, err := os.OpenFile(store.LockPath(), os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, nil, &safefile.WriteError{Path: store.LockPath(), Err: err}
		}
		if err := filelock.TryLock(held); err != nil {
			held.Close()
			if errors.Is(err, filelock.ErrLocked) {
				return nil, nil, store.lockedError()
			}
			return nil, nil, &safefile.WriteError{Path: store.LockPath(), Err: err}
		}
		if !store.isLockFile(held) {
			held.Close()
			continue
		}
		prev, _ := readLockInfo(held)
		if err := store.writeLockInfo(held, *info); err != nil {
			os.Remove(store.LockPath())
			held.Close()
			return nil, nil, &safefile.WriteError{Path: store.LockPath(), Err: err}
		}
		f.Close()
		return held, prev, nil
	}
	return nil, nil, fmt.Errorf("cannot take the state lock %s: the file keeps being replaced (by many runs at once?)", store.LockPath())
}

// isLockFile reports whether f is the file at the lock's path now.
func (store *Store) isLockFile(f *os.File) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(store.LockPath())
	return err == nil && os.SameFile(a, b)
}

// writeLockInfo replaces the content of the lock file f with info, synced.
func (store *Store) writeLockInfo(f *os.File, info backend.LockInfo) error {
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	if err := f.Truncate(0); err != nil {
		return err
	}
	var w io.Writer = io.NewOffsetWriter(f, 0)
	if store.WrapWrite != nil {
		w = store.WrapWrite(store.LockPath(), w)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return err
	}
	return f.Sync()
}

// readLockInfo reads the holder's details in the lock file f; nil when it
// holds none (a lock file being made, or left empty).
func readLockInfo(f *os.File) (*backend.LockInfo, error) {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<16))
	if err != nil {
		return nil, err
	}
	return parseLockInfo(b)
}

func parseLockInfo(b []byte) (*backend.LockInfo, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var info backend.LockInfo
	if err := json.Unmarshal(b, &info); err != nil || info.ID == "" {
		return nil, errors.New("not a lock")
	}
	return &info, nil
}

// removeStaleTemps deletes temporary files a killed run left next to the
// state (a state or backup written halfway; lock files of older leadsync
// versions). Only the lock holder writes there, so once the lock is ours
// every such file is stale.
func (store *Store) removeStaleTemps() {
	base := filepath.Base(store.path)
	dir := filepath.Dir(store.path)
	for _, pattern := range []string{"." + base + ".tmp-*", "." + base + ".lock.tmp-*", base + ".backup.tmp", base + ".lock.stale-*"} {
		matches, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, m := range matches {
			os.Remove(m)
		}
	}
}

// lockedError describes the lock held now.
func (store *Store) lockedError() *LockedError {
	le := &LockedError{Path: store.LockPath(), Now: store.now()}
	if info, err := store.ReadLock(); err == nil {
		le.Info = info
	}
	return le
}

// ReadLock returns the details in the lock file, nil when there is none.
// They are those of the run holding the lock, or of a run that died
// without unlocking (the next Lock takes its lock over).
func (store *Store) ReadLock() (*backend.LockInfo, error) {
	b, err := os.ReadFile(store.LockPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	info, err := parseLockInfo(b)
	if err != nil {
		return nil, fmt.Errorf("lock file %s cannot be read", store.LockPath())
	}
	return info, nil
}

// held reports whether a live run holds the OS lock of the state now (the
// lock file's details are not those of a run that died). It is true where
// the platform cannot tell.
func (store *Store) held() bool {
	if !filelock.Supported {
		return true
	}
	f, err := os.OpenFile(store.LockPath(), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return errors.Is(filelock.TryLock(f), filelock.ErrLocked)
}

// LockWait is Lock that keeps trying while the lock is held, up to timeout
// or until ctx is done; it returns the last *LockedError then.
func (store *Store) LockWait(ctx context.Context, op string, timeout time.Duration) (*Lock, error) {
	return backend.RetryLock(ctx, timeout, func() (*Lock, error) { return store.Lock(op) }, isLocked)
}

// isLocked reports whether err is a lock held by another run.
func isLocked(err error) bool {
	var le *LockedError
	return errors.As(err, &le)
}

// Unlock releases the lock: the lock file is removed while the OS lock is
// still held (so that no run can take a lock on a file about to go), then
// the OS lock goes with the file's closing. A lock that someone removed
// with force-unlock (and maybe took again) is left alone.
func (l *Lock) Unlock() error {
	if l.f == nil {
		return nil
	}
	defer func() {
		l.f.Close()
		l.f = nil
	}()
	if !l.store.isLockFile(l.f) {
		info, err := l.store.ReadLock()
		if err != nil || info == nil {
			return err
		}
		return fmt.Errorf("the state lock was removed with force-unlock while this run held it; it is now held by %s for %q (lock ID %s)", info.Who, info.Operation, info.ID)
	}
	if err := removeHeldLock(l.f, l.store.LockPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &safefile.WriteError{Path: l.store.LockPath(), Err: err}
	}
	return nil
}

// ForceUnlock removes the lock with the given ID (as printed in the
// LockedError). A different ID is refused, so that a lock taken since the
// user read the message is not broken by mistake. held reports whether a
// live run still held it: that run keeps running, unlocked.
func (store *Store) ForceUnlock(id string) (held bool, err error) {
	info, err := store.ReadLock()
	if err != nil {
		return false, fmt.Errorf("%v; if no leadsync runs on this state, delete the file by hand", err)
	}
	if info == nil {
		return false, fmt.Errorf("the state %s is not locked", store.path)
	}
	if info.ID != id {
		return false, fmt.Errorf("lock ID %q does not match the lock held now (ID %s, by %s for %q); nothing was removed", id, info.ID, info.Who, info.Operation)
	}
	held = store.held()
	if err := os.Remove(store.LockPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return held, &safefile.WriteError{Path: store.LockPath(), Err: err}
	}
	return held, safefile.SyncDir(filepath.Dir(store.path))
}

// staleNote is the one line said when the lock of a run that died was
// taken over.
func (store *Store) staleNote(dead *backend.LockInfo) string {
	why := "that process no longer runs on this host"
	if dead.Host != store.host() {
		why = "that run ended without unlocking (its lock went with it)"
	}
	return fmt.Sprintf("removed the stale state lock of %s (pid %d, %q since %s): %s",
		dead.Who, dead.PID, dead.Operation, dead.Created.UTC().Format("2006-01-02 15:04:05 MST"), why)
}
