package local

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
)

// fullDisk makes every write to a file whose path is in names fail as on a
// full disk, after writing half of what it was given.
func fullDisk(names ...string) func(string, io.Writer) io.Writer {
	return func(name string, w io.Writer) io.Writer {
		for _, n := range names {
			if n == name {
				return writerFunc(func(p []byte) (int, error) {
					k, _ := w.Write(p[:len(p)/2])
					return k, syscall.ENOSPC
				})
			}
		}
		return w
	}
}

// TestJournalHeaderWriteFailureSurfaces: the journal's first line (its
// header) cannot be written. Opening the journal fails with a disk-full
// WriteError and leaves no half-written journal that would make the next
// load fail; once the disk has room, the journal opens.
func TestJournalHeaderWriteFailureSurfaces(t *testing.T) {
	store, _ := newStore(t)
	s := state.New()
	store.WrapWrite = fullDisk(store.JournalPath())
	j, err := store.OpenJournal(s)
	var we *safefile.WriteError
	if !errors.As(err, &we) || !strings.Contains(err.Error(), "disk is full") || !strings.Contains(err.Error(), store.JournalPath()) {
		t.Fatalf("OpenJournal on a full disk: got journal %v, error %v; want a disk-full WriteError naming the journal", j, err)
	}
	if _, err := os.Stat(store.JournalPath()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a half-written journal was left behind (stat: %v)", err)
	}
	if _, err := NewStore(store.Path()).Load(); err != nil {
		t.Errorf("state does not load after the failed open: %v", err)
	}
	store.WrapWrite = nil
	j, err = store.OpenJournal(s)
	must(t, err)
	evs := demoEvents()
	must(t, j.Record(&evs[0]))
}

// TestLockWriteFailureSurfaces: the lock file cannot be written. Lock
// fails with a disk-full WriteError, holds nothing, leaves no temporary
// file, and the next Lock succeeds.
func TestLockWriteFailureSurfaces(t *testing.T) {
	store, _ := newStore(t)
	store.WrapWrite = fullDisk(store.LockPath())
	l, err := store.Lock("apply")
	var we *safefile.WriteError
	if !errors.As(err, &we) || !strings.Contains(err.Error(), "disk is full") || !strings.Contains(err.Error(), store.LockPath()) {
		t.Fatalf("Lock on a full disk: got lock %v, error %v; want a disk-full WriteError naming the lock", l, err)
	}
	if got := leftovers(t, filepath.Dir(store.Path()), ".gitignore"); len(got) > 0 {
		t.Errorf("left behind: %v", got)
	}
	store.WrapWrite = nil
	l, err = store.Lock("apply")
	must(t, err)
	must(t, l.Unlock())
}
