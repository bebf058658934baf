//go:build linux

package testenv

import (
	"os"
	"strconv"
	"syscall"
	"testing"
)

// MountTmpfs mounts a tmpfs of size bytes on dir, for a real full disk;
// the mount is undone when the test ends. A process that may not mount
// (not root, no CAP_SYS_ADMIN) skips t, which fails under CI.
func MountTmpfs(t testing.TB, dir string, size int) {
	t.Helper()
	if os.Geteuid() != 0 {
		Skip(t, "needs root to mount a small file system (a real full disk)")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.Itoa(size)+",mode=700"); err != nil {
		Skipf(t, "cannot mount a small file system here: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
}

// ReadOnly makes dir read-only for this process until the test ends: the
// permission bits when not root, a read-only bind mount of dir on itself
// for root (who ignores permission bits). A root that may not mount skips
// t, which fails under CI.
func ReadOnly(t testing.TB, dir string) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
		return
	}
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		Skipf(t, "root ignores permission bits and cannot bind-mount %s read-only here: %v", dir, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	if err := syscall.Mount("", dir, "", syscall.MS_BIND|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		Skipf(t, "root ignores permission bits and cannot remount %s read-only here: %v", dir, err)
	}
}
