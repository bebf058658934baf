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

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/version"
)

// Lock is a held state lock.
type Lock struct {
	store *Store
	Info  backend.LockInfo
	// Broken is the lock of a dead holder that Lock removed to take the
	// lock; nil when there was none.
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

func (store *Store) alive(pid int) bool {
	if store.Alive != nil {
		return store.Alive(pid)
	}
	return processAlive(pid)
}

// Lock takes the state lock for op (e.g. "apply"). When another run holds
// it, the error is a *LockedError naming the holder. The lock file is made
// complete in a temporary file and linked into place, so that a crash never
// leaves a half-written lock.
func (store *Store) Lock(op string) (*Lock, error) {
	dir := filepath.Dir(store.path)
	if err := safefile.EnsureDir(dir); err != nil {
		return nil, &safefile.WriteError{Path: store.LockPath(), Err: err}
	}
	host := store.host()
	info := backend.LockInfo{
		ID:        state.NewUUID(),
		Operation: op,
		Who:       store.user() + "@" + host,
		Host:      host,
		PID:       store.pid(),
		Created:   store.now().UTC().Truncate(time.Second),
		Version:   version.String(),
	}
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return nil, err
	}
	b = append(b, '\n')
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(store.LockPath())+".tmp-*")
	if err != nil {
		return nil, &safefile.WriteError{Path: store.LockPath(), Err: err}
	}
	defer os.Remove(tmp.Name())
	var w io.Writer = tmp
	if store.WrapWrite != nil {
		w = store.WrapWrite(store.LockPath(), tmp)
	}
	// err is assigned, not declared: a failed write must not be lost in
	// an inner scope.
	if _, err = w.Write(b); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, &safefile.WriteError{Path: store.LockPath(), Err: err}
	}
	var broken *backend.LockInfo
	for {
		err = os.Link(tmp.Name(), store.LockPath())
		if err != nil && !errors.Is(err, fs.ErrExist) {
			// No hard links here: fall back to an exclusive create.
			err = store.writeExclusive(store.LockPath(), b)
		}
		if !errors.Is(err, fs.ErrExist) {
			break
		}
		le := store.lockedError()
		// A holder known dead (this host, its process gone) cannot
		// finish: its lock is broken once, with a note. Any other
		// holder keeps its lock (force-unlock is the user's call).
		if broken != nil || !le.Dead || le.Info == nil || !store.breakDeadLock(le.Info) {
			return nil, le
		}
		broken = le.Info
	}
	if err != nil {
		return nil, &safefile.WriteError{Path: store.LockPath(), Err: err}
	}
	safefile.SyncDir(dir)
	store.removeStaleTemps(tmp.Name())
	if broken != nil && store.Notify != nil {
		store.Notify(staleNote(broken))
	}
	return &Lock{store: store, Info: info, Broken: broken}, nil
}

// removeStaleTemps deletes temporary files a killed run left next to the
// state (a state, lock or backup written halfway). Only the lock holder
// writes there, so once the lock is ours every such file is stale.
func (store *Store) removeStaleTemps(keep string) {
	base := filepath.Base(store.path)
	dir := filepath.Dir(store.path)
	for _, pattern := range []string{"." + base + ".tmp-*", "." + base + ".lock.tmp-*", base + ".backup.tmp"} {
		matches, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, m := range matches {
			if m != keep {
				os.Remove(m)
			}
		}
	}
}

// writeExclusive creates path, which must not exist, holding b.
func (store *Store) writeExclusive(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	var w io.Writer = f
	if store.WrapWrite != nil {
		w = store.WrapWrite(path, f)
	}
	if _, err = w.Write(b); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// lockedError describes the lock held now.
func (store *Store) lockedError() *LockedError {
	le := &LockedError{Path: store.LockPath(), Now: store.now()}
	info, err := store.ReadLock()
	if err != nil || info == nil {
		return le
	}
	le.Info = info
	if info.Host == store.host() && info.PID > 0 && info.PID != store.pid() && !store.alive(info.PID) {
		le.Dead = true
	}
	return le
}

// ReadLock returns the lock held now, nil when the state is not locked.
func (store *Store) ReadLock() (*backend.LockInfo, error) {
	b, err := os.ReadFile(store.LockPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var info backend.LockInfo
	if err := json.Unmarshal(b, &info); err != nil || info.ID == "" {
		return nil, fmt.Errorf("lock file %s cannot be read", store.LockPath())
	}
	return &info, nil
}

// LockWait is Lock that keeps trying while the lock is held, up to timeout
// or until ctx is done; it returns the last *LockedError then. A holder that
// is known dead is reported at once: waiting would not help.
func (store *Store) LockWait(ctx context.Context, op string, timeout time.Duration) (*Lock, error) {
	return backend.RetryLock(ctx, timeout, func() (*Lock, error) { return store.Lock(op) }, func(err error) bool {
		var le *LockedError
		return errors.As(err, &le) && !le.Dead
	})
}

// Unlock releases the lock. A lock that someone removed with force-unlock
// (and maybe took again) is left alone.
func (l *Lock) Unlock() error {
	info, err := l.store.ReadLock()
	if err != nil {
		return err
	}
	if info == nil {
		return nil
	}
	if info.ID != l.Info.ID {
		return fmt.Errorf("the state lock was removed with force-unlock while this run held it; it is now held by %s for %q (lock ID %s)", info.Who, info.Operation, info.ID)
	}
	if err := os.Remove(l.store.LockPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &safefile.WriteError{Path: l.store.LockPath(), Err: err}
	}
	return nil
}

// ForceUnlock removes the lock with the given ID (as printed in the
// LockedError). A different ID is refused, so that a lock taken since the
// user read the message is not broken by mistake.
func (store *Store) ForceUnlock(id string) error {
	info, err := store.ReadLock()
	if err != nil {
		return fmt.Errorf("%v; if no leadsync runs on this state, delete the file by hand", err)
	}
	if info == nil {
		return fmt.Errorf("the state %s is not locked", store.path)
	}
	if info.ID != id {
		return fmt.Errorf("lock ID %q does not match the lock held now (ID %s, by %s for %q); nothing was removed", id, info.ID, info.Who, info.Operation)
	}
	if err := os.Remove(store.LockPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &safefile.WriteError{Path: store.LockPath(), Err: err}
	}
	return safefile.SyncDir(filepath.Dir(store.path))
}
