//go:build unix

package safefile

import (
	"errors"
	"syscall"
)

// ProcessAlive reports whether a process with this ID runs on this host
// (a temporary file's maker, a lock's holder). Signal 0 checks without
// sending anything; EPERM means it runs as someone else.
func ProcessAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
