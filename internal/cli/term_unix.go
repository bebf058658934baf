//go:build linux || darwin || freebsd || netbsd || openbsd

package cli

import (
	"os"
	"syscall"
	"unsafe"
)

// isTerminal reports whether f is a terminal. A character device is not
// enough: /dev/null is one too, and a command run with </dev/null (cron,
// CI) must not prompt, colour or draw a live status line. Only a terminal
// answers the termios request.
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), ioctlGetTermios, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
