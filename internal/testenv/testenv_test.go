package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSkipFailsUnderCI runs this test binary again with CI=true and
// without it, on a test that skips: a skip under CI is a failure.
func TestSkipFailsUnderCI(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") == "1" {
		return
	}
	for _, c := range []struct {
		ci       string
		wantFail bool
	}{{"true", true}, {"", false}} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestChildSkips$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTENV_CHILD=1", "CI="+c.ci)
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != c.wantFail {
			t.Errorf("CI=%q: failed %v, want %v\n%s", c.ci, failed, c.wantFail, out)
		}
		if !strings.Contains(string(out), "no such tool here") {
			t.Errorf("CI=%q: the reason is not said:\n%s", c.ci, out)
		}
	}
}

// TestChildSkips skips when TestSkipFailsUnderCI runs it.
func TestChildSkips(t *testing.T) {
	if os.Getenv("TESTENV_CHILD") != "1" {
		return
	}
	Skip(t, "no such tool here")
}
