//go:build unix

package safefile

import (
	"os"
	"os/exec"
	"testing"
)

// TestProcessAlive: this process and its parent run; a child waited for
// no longer does. A live maker's temporary files are kept and a dead
// one's removed on that answer (RemoveDeadTemps), and the pg backend
// waits for a lock's holder only when it is dead.
func TestProcessAlive(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what string
		pid  int
		want bool
	}{
		{"this process", os.Getpid(), true},
		{"its parent", os.Getppid(), true},
		{"a child waited for", cmd.Process.Pid, false},
	} {
		if got := ProcessAlive(tc.pid); got != tc.want {
			t.Errorf("ProcessAlive of %s (%d) = %v, want %v", tc.what, tc.pid, got, tc.want)
		}
	}
}
