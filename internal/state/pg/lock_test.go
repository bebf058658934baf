package pg

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"

	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/testenv"
)

// TestDeadHolder: Lock waits for PostgreSQL to end the session of a
// refused lock's holder only when the holder was a process of this host
// that no longer runs (killed: its connection closes a moment later);
// a live holder, one of another host or one that did not record itself
// yet is refused at once.
func TestDeadHolder(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		testenv.Skip(t, "safefile.ProcessAlive cannot tell here")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid // waited for: no longer runs
	b, err := New(Options{ConnStr: "postgres://u@h/db", Host: func() string { return "vm" }})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		info *backend.LockInfo
		want bool
	}{
		{&backend.LockInfo{Host: "vm", PID: dead}, true},
		{&backend.LockInfo{Host: "vm", PID: os.Getpid()}, false},
		{&backend.LockInfo{Host: "laptop", PID: dead}, false},
		{&backend.LockInfo{Host: "vm"}, false},
		{nil, false},
	} {
		err := fmt.Errorf("taking the lock: %w", &LockedError{Info: tc.info})
		if got := b.deadHolder(err); got != tc.want {
			t.Errorf("deadHolder(%+v) = %v, want %v", tc.info, got, tc.want)
		}
	}
	if b.deadHolder(fmt.Errorf("no lock")) {
		t.Error("deadHolder of an error that is no refused lock")
	}
}
