package filelock

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/leadsync/leadsync/internal/testenv"
)

// Two open files of one path exclude each other as two processes would;
// closing the holder releases the lock, as the kernel does at its exit.
func TestTryLock(t *testing.T) {
	if !Supported {
		testenv.Skip(t, "no operating system file lock on this platform")
	}
	path := filepath.Join(t.TempDir(), "lock")
	open := func() *os.File {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b := open(), open()
	if err := TryLock(a); err != nil {
		t.Fatalf("first lock: %v", err)
	}
	if err := TryLock(b); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock while held: %v, want ErrLocked", err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := TryLock(b); err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	b.Close() // the holder goes away without unlocking
	c := open()
	if err := TryLock(c); err != nil {
		t.Fatalf("lock after the holder closed its file: %v", err)
	}
	// Lock waits for the holder: called only once c lets go, so that the
	// test cannot hang.
	if err := Unlock(c); err != nil {
		t.Fatal(err)
	}
	if err := Lock(a); err != nil {
		t.Fatalf("waiting lock of a free file: %v", err)
	}
}
