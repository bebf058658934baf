package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAPanicIsOneMessage: a panic of a command is one message naming a
// file that holds the stack, exit 1, and no Go stack trace on the
// screen.
func TestAPanicIsOneMessage(t *testing.T) {
	f, out, errOut := configTestFactory(t.TempDir())
	f.CacheDir = t.TempDir()
	f.Getenv = func(string) string { panic("a bug of leadsync") }
	code := Run(context.Background(), f, []string{"validate"})
	msg := errOut.String()
	if code != ExitError || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q; want 1 and nothing", code, out)
	}
	if !strings.HasPrefix(msg, "Error: leadsync stopped on an internal error: a bug of leadsync\n") || strings.Count(msg, "Error:") != 1 {
		t.Fatalf("stderr = %q; want one internal error", msg)
	}
	if strings.Contains(msg, "goroutine ") || strings.Contains(msg, ".go:") {
		t.Fatalf("a stack trace reached the screen:\n%s", msg)
	}
	logs, _ := filepath.Glob(filepath.Join(f.CacheDir, "leadsync", "leadsync-crash-*.log"))
	if len(logs) != 1 || !strings.Contains(msg, logs[0]) {
		t.Fatalf("crash logs %v, message %q: want one, named", logs, msg)
	}
	stack, err := os.ReadFile(logs[0])
	if err != nil || !strings.Contains(string(stack), "panic: a bug of leadsync") || !strings.Contains(string(stack), "goroutine ") {
		t.Fatalf("crash log %q (%v): want the panic and its stack", stack, err)
	}
}
