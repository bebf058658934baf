//go:build windows

package filelock

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// Supported says whether this platform has an operating system file lock.
const Supported = true

// The lock covers one byte far past any content, so that the holder's
// details written in the file stay readable by everyone (a locked byte
// range cannot be read by other processes on Windows).
const (
	lockOffsetLow  = 0xFFFFFFFF
	lockOffsetHigh = 0x7FFFFFFF
)

func lockFile(f *os.File, flags uint32) error {
	ol := &windows.Overlapped{Offset: lockOffsetLow, OffsetHigh: lockOffsetHigh}
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, ol)
}

// TryLock takes an exclusive lock on f without waiting; ErrLocked when
// another open handle holds it.
func TryLock(f *os.File) error {
	err := lockFile(f, windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return ErrLocked
	}
	if err != nil {
		return &os.PathError{Op: "LockFileEx", Path: f.Name(), Err: err}
	}
	return nil
}

// Lock takes an exclusive lock on f, waiting for it.
func Lock(f *os.File) error {
	if err := lockFile(f, windows.LOCKFILE_EXCLUSIVE_LOCK); err != nil {
		return &os.PathError{Op: "LockFileEx", Path: f.Name(), Err: err}
	}
	return nil
}

// Unlock releases the lock on f (closing f releases it too).
func Unlock(f *os.File) error {
	ol := &windows.Overlapped{Offset: lockOffsetLow, OffsetHigh: lockOffsetHigh}
	if err := windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, ol); err != nil {
		return &os.PathError{Op: "UnlockFileEx", Path: f.Name(), Err: err}
	}
	return nil
}
