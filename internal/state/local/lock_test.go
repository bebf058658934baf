package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/filelock"
	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/testenv"
)

// lockStore returns a store whose lock holders are identified by fakes.
func lockStore(t *testing.T, pid int) *Store {
	store, _ := newStore(t)
	return withIdentity(store, pid)
}

func withIdentity(store *Store, pid int) *Store {
	store.Now = func() time.Time { return t0.Add(3 * time.Minute) }
	store.Host = func() string { return "box" }
	store.User = func() string { return "ann" }
	store.PID = pid
	return store
}

// die does to a held lock what the kernel does to the lock of a process
// that is killed: its file is closed (the OS lock goes), the file and the
// details in it stay.
func die(l *Lock) { l.f.Close() }

func needOSLock(t *testing.T) {
	if !filelock.Supported {
		testenv.Skip(t, "no operating system file lock on this platform: the lock file's existence is the lock")
	}
}

func TestLockContention(t *testing.T) {
	a := lockStore(t, 100)
	a.Now = func() time.Time { return t0 }
	l, err := a.Lock("apply")
	must(t, err)
	if m := mode(t, a.LockPath()); m != 0o600 {
		t.Errorf("lock mode %v", m)
	}

	b := withIdentity(NewStore(a.Path()), 200)
	_, err = b.Lock("apply")
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("got %v, want a LockedError", err)
	}
	msg := err.Error()
	for _, want := range []string{"ann@box", "pid 100", `"apply"`, "3m ago", "leadsync force-unlock " + l.Info.ID, "Wait for that run"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q: %s", want, msg)
		}
	}
	if h := le.Holder(); h == nil || h.ID != l.Info.ID {
		t.Errorf("Holder() = %+v", h)
	}

	// Waiting gives up at once with a zero timeout, and when ctx ends.
	if _, err := b.LockWait(context.Background(), "apply", 0); !errors.As(err, &le) {
		t.Errorf("LockWait: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.LockWait(ctx, "apply", time.Hour); !errors.As(err, &le) {
		t.Errorf("LockWait after cancel: %v", err)
	}

	must(t, l.Unlock())
	l2, err := b.Lock("state rm")
	must(t, err)
	must(t, l2.Unlock())
	if _, err := os.Stat(a.LockPath()); !os.IsNotExist(err) {
		t.Errorf("lock file left: %v", err)
	}
}

// The lock is the operating system's: while it is held nobody can take it
// on the file, whatever the file holds; a clean unlock removes the file.
func TestLockIsAnOSLock(t *testing.T) {
	needOSLock(t)
	store := lockStore(t, 100)
	l, err := store.Lock("apply")
	must(t, err)
	f, err := os.OpenFile(store.LockPath(), os.O_RDWR, 0)
	must(t, err)
	defer f.Close()
	if err := filelock.TryLock(f); !errors.Is(err, filelock.ErrLocked) {
		t.Fatalf("the lock file is not locked: %v", err)
	}
	must(t, l.Unlock())
	if _, err := os.Stat(store.LockPath()); !os.IsNotExist(err) {
		t.Errorf("lock file left after a clean unlock: %v", err)
	}
	// A file opened before the unlock removed it is no lock file any
	// more: a lock taken on it would exclude nobody.
	if store.isLockFile(f) {
		t.Error("a removed lock file is taken for the lock file")
	}
}

// TestStaleLockOfADeadProcessIsBroken: the holder was killed: the kernel
// released its lock, so the next Lock takes it at once, with a one-line
// note naming the run whose details it replaced.
func TestStaleLockOfADeadProcessIsBroken(t *testing.T) {
	needOSLock(t)
	for _, tc := range []struct {
		host, why string
	}{
		{"box", "that process no longer runs on this host"},
		{"laptop", "that run ended without unlocking"},
	} {
		a := lockStore(t, 100)
		a.Host = func() string { return tc.host }
		l, err := a.Lock("apply")
		must(t, err)
		die(l)
		b := withIdentity(NewStore(a.Path()), 200)
		var notes []string
		b.Notify = func(n string) { notes = append(notes, n) }
		l2, err := b.Lock("apply")
		must(t, err)
		if l2.Broken == nil || l2.Broken.ID != l.Info.ID {
			t.Fatalf("Broken = %+v, want the dead lock %s", l2.Broken, l.Info.ID)
		}
		if len(notes) != 1 || !strings.Contains(notes[0], "removed the stale state lock of ann@"+tc.host+" (pid 100") || !strings.Contains(notes[0], tc.why) {
			t.Errorf("notes = %q", notes)
		}
		if info, _ := b.ReadLock(); info == nil || info.ID != l2.Info.ID {
			t.Errorf("lock now %+v, want the new holder's", info)
		}
		// The old holder's Unlock (were it to come back) must not remove
		// the new lock.
		l.Unlock()
		if info, _ := b.ReadLock(); info == nil || info.ID != l2.Info.ID {
			t.Errorf("lock now %+v", info)
		}
		must(t, l2.Unlock())
	}
}

// TestForceUnlock: force-unlock takes the lock's ID, refuses another, and
// says whether a live run still held the lock it removed.
func TestForceUnlock(t *testing.T) {
	a := lockStore(t, 100)
	l, err := a.Lock("apply")
	must(t, err)
	b := withIdentity(NewStore(a.Path()), 200)
	if _, err := b.Lock("apply"); err == nil || !strings.Contains(err.Error(), "force-unlock "+l.Info.ID) {
		t.Fatalf("got %v", err)
	}
	if _, err := b.ForceUnlock("wrong-id"); err == nil || !strings.Contains(err.Error(), l.Info.ID) {
		t.Errorf("wrong ID: %v", err)
	}
	held, err := b.ForceUnlock(l.Info.ID)
	must(t, err)
	if !held {
		t.Error("the lock of a live run was removed without saying so")
	}
	if _, err := b.ForceUnlock(l.Info.ID); err == nil || !strings.Contains(err.Error(), "not locked") {
		t.Errorf("second force-unlock: %v", err)
	}
	l2, err := b.Lock("apply")
	must(t, err)
	if err := l.Unlock(); err == nil || !strings.Contains(err.Error(), "force-unlock") {
		t.Errorf("old holder's unlock: %v", err)
	}
	if info, _ := b.ReadLock(); info == nil || info.ID != l2.Info.ID {
		t.Errorf("lock now %+v", info)
	}
	// A dead run's lock: removed, and it held nothing any more.
	die(l2)
	held, err = b.ForceUnlock(l2.Info.ID)
	must(t, err)
	if held && filelock.Supported {
		t.Error("a dead run's lock is said to be held")
	}
}

// A lock file nobody holds whose content cannot be read (a hand edit) is
// taken over; one held while its holder has not written its details yet
// is refused without naming anyone.
func TestUnreadableLock(t *testing.T) {
	needOSLock(t)
	store := lockStore(t, 100)
	must(t, safefile.EnsureDir(filepath.Dir(store.Path())))
	must(t, os.WriteFile(store.LockPath(), []byte("{garbage"), 0o600))
	l, err := store.Lock("apply")
	must(t, err)
	must(t, l.Unlock())

	must(t, os.WriteFile(store.LockPath(), nil, 0o600))
	f, err := os.OpenFile(store.LockPath(), os.O_RDWR, 0)
	must(t, err)
	defer f.Close()
	must(t, filelock.TryLock(f))
	_, err = store.Lock("apply")
	var le *LockedError
	if !errors.As(err, &le) || le.Info != nil || !strings.Contains(err.Error(), store.LockPath()) || !strings.Contains(err.Error(), "just starting") {
		t.Fatalf("got %v", err)
	}
}

func TestLockRemovesTempFilesOfKilledRuns(t *testing.T) {
	store := lockStore(t, 100)
	dir := filepath.Dir(store.Path())
	must(t, safefile.EnsureDir(dir))
	stale := []string{".state.json.tmp-123", ".state.json.lock.tmp-456", "state.json.backup.tmp", "state.json.lock.stale-1"}
	for _, name := range stale {
		must(t, os.WriteFile(filepath.Join(dir, name), []byte("half"), 0o600))
	}
	must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o600))
	l, err := store.Lock("apply")
	must(t, err)
	defer l.Unlock()
	if got := leftovers(t, dir, ".gitignore", "state.json.lock", "notes.txt"); len(got) > 0 {
		t.Errorf("left behind: %v", got)
	}
}

// TestLiveLockHolder: LiveLockHolder names the run that holds the lock
// now; the details a dead run left in the lock file name nobody (plan and
// show must not say that an apply runs), while LockHolder still reads them
// (force-unlock removes that lock by its ID).
func TestLiveLockHolder(t *testing.T) {
	needOSLock(t)
	a := lockStore(t, 100)
	if info, err := a.LiveLockHolder(); info != nil || err != nil {
		t.Fatalf("LiveLockHolder without a lock = %+v, %v", info, err)
	}
	l, err := a.Lock("apply")
	must(t, err)
	reader := NewStore(a.Path())
	if info, err := reader.LiveLockHolder(); err != nil || info == nil || info.ID != l.Info.ID || info.PID != 100 {
		t.Fatalf("LiveLockHolder while held = %+v, %v; want the holder", info, err)
	}
	die(l)
	if info, err := reader.LiveLockHolder(); info != nil || err != nil {
		t.Errorf("LiveLockHolder after the holder died = %+v, %v; want nobody", info, err)
	}
	if info, err := reader.LockHolder(); err != nil || info == nil || info.ID != l.Info.ID {
		t.Errorf("LockHolder after the holder died = %+v, %v; want the lock file's details", info, err)
	}
}
