//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package filelock

import "os"

// Supported says whether this platform has an operating system file lock:
// not this one. The functions below do nothing.
const Supported = false

// TryLock does nothing here (Supported is false).
func TryLock(*os.File) error { return nil }

// Lock does nothing here (Supported is false).
func Lock(*os.File) error { return nil }

// Unlock does nothing here (Supported is false).
func Unlock(*os.File) error { return nil }
