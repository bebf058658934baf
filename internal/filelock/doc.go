// Package filelock takes the operating system's lock on an open file: flock
// on Linux, macOS and the BSDs, LockFileEx on Windows. The kernel releases
// such a lock when its holder exits in any way (kill -9 included), so a
// lock of a dead process never needs to be broken by hand. The local
// state's lock and the pace file use it.
//
// Elsewhere (Solaris, AIX, Plan 9, ...) Supported is false and the
// functions do nothing: callers then fall back on the existence of a file
// (see internal/state/local).
//
// It imports only the standard library and golang.org/x/sys.
package filelock

import "errors"

// ErrLocked is returned by TryLock when another open file holds the lock.
var ErrLocked = errors.New("the file is locked by another process")
