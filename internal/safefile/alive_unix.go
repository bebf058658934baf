//go:build unix

package safefile

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this ID runs on this host.
// Signal 0 checks without sending anything; EPERM means it runs as someone
// else.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
