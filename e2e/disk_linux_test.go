//go:build linux

package e2e

import (
	"os"
	"strconv"
	"syscall"
	"testing"
)

// mountTmpfs mounts a tmpfs of size bytes on dir, for a real full disk. It
// reports false when this process may not mount (not root, no
// CAP_SYS_ADMIN); the mount is undone when the test ends.
func mountTmpfs(t *testing.T, dir string, size int) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.Itoa(size)+",mode=700"); err != nil {
		t.Logf("cannot mount a tmpfs (%v)", err)
		return false
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return true
}

// mountReadOnly makes dir read-only for everyone, root included, with a
// read-only bind mount of itself. It reports false when this process may
// not mount; the mount is undone when the test ends.
func mountReadOnly(t *testing.T, dir string) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		t.Logf("cannot bind-mount (%v)", err)
		return false
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	if err := syscall.Mount("", dir, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Logf("cannot remount read-only (%v)", err)
		return false
	}
	return true
}
