//go:build !linux

package e2e

import "testing"

// mountTmpfs needs Linux; elsewhere the full-disk tests that use it skip.
func mountTmpfs(t *testing.T, dir string, size int) bool { return false }

// mountReadOnly needs Linux; elsewhere a chmod stands in when not root.
func mountReadOnly(t *testing.T, dir string) bool { return false }
