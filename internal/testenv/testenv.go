// Package testenv is what a test says when it cannot run here: the one
// way a test of this repository skips. Outside CI a skip is a skip, with
// its reason; under CI (CI=true, which .ci/run exports) it is a failure,
// so that a check CI cannot run never passes unnoticed. It also holds
// what tests of several packages share about their surroundings: the
// shared PostgreSQL server's lazy commits (LazyCommits) and its pool of
// migrated schemas (SchemaPool), temporary folders in memory. Imported by
// tests only.
package testenv

import (
	"fmt"
	"os"
	"testing"
)

// CI reports whether the tests run under CI (CI=true in the environment).
func CI() bool { return os.Getenv("CI") == "true" }

// Skip skips t with the reason why, or fails it under CI.
func Skip(t testing.TB, why string) {
	t.Helper()
	if CI() {
		t.Fatalf("%s (a skip fails under CI=true: CI must run every test)", why)
	}
	t.Skip(why)
}

// Skipf is Skip with a formatted reason.
func Skipf(t testing.TB, format string, args ...any) {
	t.Helper()
	Skip(t, fmt.Sprintf(format, args...))
}

// SkipIfShort skips t under -short, saying what it does that -short
// leaves out (real processes, LibreOffice, ...). CI never runs -short: a
// -short run under CI=true fails here.
func SkipIfShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		Skip(t, what+"; skipped with -short")
	}
}
