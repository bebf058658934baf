//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Self is the user+system CPU time of this process so far; 0 when it
// cannot be read.
func Self() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
