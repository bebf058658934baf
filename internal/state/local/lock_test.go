package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/safefile"
)

// lockStore returns a store whose lock holders are identified by fakes.
func lockStore(t *testing.T, pid int, alive bool) *Store {
	store, _ := newStore(t)
	return withIdentity(store, pid, alive)
}

func withIdentity(store *Store, pid int, alive bool) *Store {
	store.Now = func() time.Time { return t0.Add(3 * time.Minute) }
	store.Host = func() string { return "box" }
	store.User = func() string { return "ann" }
	store.PID = pid
	store.Alive = func(int) bool { return alive }
	return store
}

func TestLockContention(t *testing.T) {
	a := lockStore(t, 100, true)
	a.Now = func() time.Time { return t0 }
	l, err := a.Lock("apply")
	must(t, err)
	if m := mode(t, a.LockPath()); m != 0o600 {
		t.Errorf("lock mode %v", m)
	}

	b := withIdentity(NewStore(a.Path()), 200, true)
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
	if le.Dead {
		t.Error("a live holder reported dead")
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

// TestStaleLockOfADeadProcessIsBroken: the holder was killed (same host,
// its pid no longer runs): it can never finish, so the next Lock removes
// its lock with a one-line note and takes the lock.
func TestStaleLockOfADeadProcessIsBroken(t *testing.T) {
	a := lockStore(t, 100, true)
	l, err := a.Lock("apply")
	must(t, err)
	b := withIdentity(NewStore(a.Path()), 200, false)
	var notes []string
	b.Notify = func(n string) { notes = append(notes, n) }
	l2, err := b.Lock("apply")
	must(t, err)
	if l2.Broken == nil || l2.Broken.ID != l.Info.ID {
		t.Fatalf("Broken = %+v, want the dead lock %s", l2.Broken, l.Info.ID)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "pid 100") || !strings.Contains(notes[0], "no longer runs") {
		t.Errorf("notes = %q", notes)
	}
	if info, _ := b.ReadLock(); info == nil || info.ID != l2.Info.ID {
		t.Errorf("lock now %+v, want the new holder's", info)
	}
	// The old holder's Unlock (were it to come back) must not remove the
	// new lock.
	if err := l.Unlock(); err == nil {
		t.Errorf("old holder's unlock succeeded")
	}
	if info, _ := b.ReadLock(); info == nil || info.ID != l2.Info.ID {
		t.Errorf("lock now %+v", info)
	}
	if left, _ := filepath.Glob(a.LockPath() + ".stale-*"); len(left) != 0 {
		t.Errorf("files left: %v", left)
	}
}

// TestStaleLockElsewhereNeedsForceUnlock: a lock whose holder cannot be
// known dead (another host) is never broken automatically; force-unlock
// takes its ID.
func TestStaleLockElsewhereNeedsForceUnlock(t *testing.T) {
	a := lockStore(t, 100, false)
	a.Host = func() string { return "laptop" }
	l, err := a.Lock("apply")
	must(t, err)
	b := withIdentity(NewStore(a.Path()), 200, false)
	if _, err := b.Lock("apply"); err == nil || !strings.Contains(err.Error(), "force-unlock "+l.Info.ID) {
		t.Fatalf("got %v", err)
	}
	if err := b.ForceUnlock("wrong-id"); err == nil || !strings.Contains(err.Error(), l.Info.ID) {
		t.Errorf("wrong ID: %v", err)
	}
	must(t, b.ForceUnlock(l.Info.ID))
	if err := b.ForceUnlock(l.Info.ID); err == nil || !strings.Contains(err.Error(), "not locked") {
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
}

func TestLockOnAnotherHostIsNeverDead(t *testing.T) {
	a := lockStore(t, 100, false)
	a.Host = func() string { return "laptop" }
	_, err := a.Lock("apply")
	must(t, err)
	b := withIdentity(NewStore(a.Path()), 200, false)
	_, err = b.Lock("apply")
	var le *LockedError
	if !errors.As(err, &le) || le.Dead {
		t.Fatalf("got %v (dead %v)", err, le != nil && le.Dead)
	}
}

func TestUnreadableLock(t *testing.T) {
	store := lockStore(t, 100, true)
	must(t, safefile.EnsureDir(store.Path()[:strings.LastIndex(store.Path(), "/")]))
	must(t, os.WriteFile(store.LockPath(), []byte("{garbage"), 0o600))
	_, err := store.Lock("apply")
	var le *LockedError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), store.LockPath()) {
		t.Fatalf("got %v", err)
	}
}

func TestLockRemovesTempFilesOfKilledRuns(t *testing.T) {
	store := lockStore(t, 100, true)
	dir := store.Path()[:strings.LastIndex(store.Path(), "/")]
	must(t, safefile.EnsureDir(dir))
	stale := []string{".state.json.tmp-123", ".state.json.lock.tmp-456", "state.json.backup.tmp"}
	for _, name := range stale {
		must(t, os.WriteFile(dir+"/"+name, []byte("half"), 0o600))
	}
	must(t, os.WriteFile(dir+"/notes.txt", []byte("mine"), 0o600))
	l, err := store.Lock("apply")
	must(t, err)
	defer l.Unlock()
	if got := leftovers(t, dir, ".gitignore", "state.json.lock", "notes.txt"); len(got) > 0 {
		t.Errorf("left behind: %v", got)
	}
}
