//go:build !linux

package testenv

import (
	"os"
	"testing"
)

// MountTmpfs needs Linux: elsewhere it skips t (a failure under CI).
func MountTmpfs(t testing.TB, dir string, size int) {
	t.Helper()
	Skip(t, "a small file system (a real full disk) needs Linux")
}

// ReadOnly makes dir read-only with the permission bits; root, who
// ignores them, skips t (a failure under CI).
func ReadOnly(t testing.TB, dir string) {
	t.Helper()
	if os.Geteuid() == 0 {
		Skip(t, "root ignores permission bits, and a read-only bind mount needs Linux")
	}
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
}
