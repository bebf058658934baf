package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAPanicIsOneMessage: a panic of a command is one message naming a
// file that holds the stack, exit 1, and no Go stack trace on the
// screen; with --json, the failure's JSON document carries the message.
func TestAPanicIsOneMessage(t *testing.T) {
	for _, args := range [][]string{{"validate"}, {"validate", "--json"}, {"apply", "--json", "--auto-approve"}} {
		f, out, errOut := configTestFactory(t.TempDir())
		f.CacheDir = t.TempDir()
		f.Getenv = func(string) string { panic("a bug of leadsync") }
		code := Run(context.Background(), f, args)
		msg := errOut.String()
		json := len(args) > 1
		if json {
			msg = jsonFailureMessage(t, out.Bytes())
		} else if out.Len() != 0 {
			t.Fatalf("%v: stdout %q; want nothing", args, out)
		}
		if code != ExitError {
			t.Fatalf("%v: exit %d; want 1", args, code)
		}
		if !strings.Contains(msg, "leadsync stopped on an internal error: a bug of leadsync\n") || strings.Count(msg, "internal error") != 1 {
			t.Fatalf("%v: message %q; want one internal error", args, msg)
		}
		if strings.Contains(msg+errOut.String(), "goroutine ") || strings.Contains(msg+errOut.String(), ".go:") {
			t.Fatalf("%v: a stack trace reached the user:\n%s", args, msg)
		}
		logs, _ := filepath.Glob(filepath.Join(f.CacheDir, "leadsync", "leadsync-crash-*.log"))
		if len(logs) != 1 || !strings.Contains(msg, logs[0]) {
			t.Fatalf("%v: crash logs %v, message %q: want one, named", args, logs, msg)
		}
		stack, err := os.ReadFile(logs[0])
		if err != nil || !strings.Contains(string(stack), "panic: a bug of leadsync") || !strings.Contains(string(stack), "goroutine ") {
			t.Fatalf("%v: crash log %q (%v): want the panic and its stack", args, stack, err)
		}
	}
}

// jsonFailureMessage is the error of the JSON document a failed --json
// command printed.
func jsonFailureMessage(t *testing.T, doc []byte) string {
	t.Helper()
	var v struct{ Error string }
	if err := json.Unmarshal(doc, &v); err != nil || v.Error == "" {
		t.Fatalf("stdout is no JSON failure (%v): %s", err, doc)
	}
	return v.Error
}

// TestAPanicKeepsTheSecrets: a panic whose value holds the API key or the
// PostgreSQL password shows neither, on the screen or in the crash log.
func TestAPanicKeepsTheSecrets(t *testing.T) {
	const key, pw = "sk_live_SECRET42", "pg-Passw0rd"
	f, _, errOut := configTestFactory(t.TempDir())
	f.CacheDir = t.TempDir()
	f.Getenv = func(name string) string {
		switch name {
		case "LEADSYNC_API_KEY":
			return key
		case "LEADSYNC_PG_CONN_STR":
			return "postgres://u:" + pw + "@db/x"
		}
		panic("calling with key=" + key + " and password " + pw)
	}
	if code := Run(context.Background(), f, []string{"validate"}); code != ExitError {
		t.Fatalf("exit %d, want 1", code)
	}
	logs, _ := filepath.Glob(filepath.Join(f.CacheDir, "leadsync", "leadsync-crash-*.log"))
	if len(logs) != 1 {
		t.Fatalf("crash logs %v, want one", logs)
	}
	stack, _ := os.ReadFile(logs[0])
	for _, text := range []string{errOut.String(), string(stack)} {
		if strings.Contains(text, key) || strings.Contains(text, pw) || !strings.Contains(text, "calling with key=") {
			t.Fatalf("a secret shown, or the value lost:\n%s", text)
		}
	}
}
