package export

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/testenv"
)

// TestLeftoverTempsOfAKilledExportAreRemoved: the temporary file of an
// export killed midway (its process gone) is removed by the next write of
// that file; one of a process still running is left alone.
func TestLeftoverTempsOfAKilledExportAreRemoved(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		testenv.Skip(t, "no true(1) to get the ID of a finished process")
	}
	dead := cmd.Process.Pid
	dir := t.TempDir()
	path := filepath.Join(dir, "out", "leads.xlsx")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	name := func(pid int) string {
		return filepath.Join(filepath.Dir(path), ".leads.xlsx.tmp-"+strconv.Itoa(pid)+"-123")
	}
	leftover, running := name(dead), name(os.Getppid())
	old := filepath.Join(filepath.Dir(path), ".leads.xlsx.tmp-4567890") // an older leadsync's name
	for _, f := range []string{leftover, running, old} {
		if err := os.WriteFile(f, []byte("half a workbook"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	two := time.Now().Add(-2 * time.Hour)
	os.Chtimes(old, two, two)

	af, err := createAtomic(path)
	if err != nil {
		t.Fatal(err)
	}
	af.abort()
	if _, err := os.Stat(leftover); !os.IsNotExist(err) {
		t.Errorf("the temporary file of a dead process is still there: %v", err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("an old temporary file without a process ID is still there: %v", err)
	}
	if _, err := os.Stat(running); err != nil {
		t.Errorf("the temporary file of a running process was removed: %v", err)
	}
}
