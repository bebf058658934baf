package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// runFunc is a testing.M's Run.
type runFunc func() int

func (f runFunc) Run() int { return f() }

// TestRunInMemory: the tests run with TMPDIR in a fresh folder of the
// file system in memory, open to all as /tmp is, removed after, TMPDIR
// given back; with
// DiskTempEnv=1 or no such file system, where they were.
func TestRunInMemory(t *testing.T) {
	mem := t.TempDir()
	defer func(old string) { memoryTemp = old }(memoryTemp)
	t.Setenv("TMPDIR", "/before")
	for _, c := range []struct {
		name, disk, mem string
		inMem           bool
	}{
		{"in memory", "", mem, true},
		{"kept on disk", "1", mem, false},
		{"no memory file system", "", filepath.Join(mem, "none"), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(DiskTempEnv, c.disk)
			memoryTemp = c.mem
			var during string
			var mode os.FileMode
			run := func() int {
				during = os.TempDir()
				if st, err := os.Stat(during); err == nil {
					mode = st.Mode()
				}
				return 3
			}
			if got := RunInMemory(runFunc(run)); got != 3 {
				t.Fatalf("RunInMemory returned %d, want m.Run's 3", got)
			}
			if c.inMem != (filepath.Dir(during) == mem) {
				t.Fatalf("the tests ran with TMPDIR %q, want a folder in %q: %v", during, mem, c.inMem)
			}
			if c.inMem {
				if mode != os.ModeDir|os.ModeSticky|0o777 {
					t.Fatalf("the folder's mode: %v, want /tmp's (PostgreSQL runs as another user)", mode)
				}
				if _, err := os.Stat(during); !os.IsNotExist(err) {
					t.Fatalf("the folder %s is still there (%v)", during, err)
				}
			}
			if got := os.Getenv("TMPDIR"); got != "/before" {
				t.Fatalf("TMPDIR after: %q, want /before", got)
			}
		})
	}
}
