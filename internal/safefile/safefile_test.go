package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestEnsureDir(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", ".leadsync")
	if err := EnsureDir(dir); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("folder: %v %v, want mode 0700", fi, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil || !strings.Contains(string(b), "\n*\n") {
		t.Fatalf(".gitignore: %q %v", b, err)
	}
	// A .gitignore of the user's own is left alone.
	own := filepath.Join(root, "own", ".leadsync")
	if err := os.MkdirAll(own, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(own, ".gitignore"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDir(own); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(own, ".gitignore")); string(b) != "mine\n" {
		t.Fatalf("the user's .gitignore was replaced: %q", b)
	}
	// A file where the folder should be.
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDir(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("EnsureDir of a file: %v", err)
	}
}

func TestWriteFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".leadsync")
	path := filepath.Join(dir, "exports.json")
	for _, content := range []string{"first\n", "second\n"} {
		if err := WriteFile(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != content {
			t.Fatalf("content %q %v, want %q", b, err, content)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode: %v %v, want 0600", fi, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 { // the file and .gitignore: no temporary file left
		t.Fatalf("files left: %v", entries)
	}
}

func TestWriteErrorSaysWhatToDo(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&os.PathError{Op: "write", Path: "/tmp/.state.json.tmp-123", Err: syscall.ENOSPC}, "the disk is full; free some space"},
		{&os.PathError{Op: "open", Path: "/x", Err: os.ErrPermission}, "make the folder writable"},
		{errors.New("boom"), "cannot write state.json: boom (the previous file is unchanged)"},
	} {
		got := (&WriteError{Path: "state.json", Err: tc.err}).Error()
		if !strings.Contains(got, tc.want) || strings.Contains(got, ".tmp-123") {
			t.Errorf("%v: %q does not say %q (or names the temporary file)", tc.err, got, tc.want)
		}
	}
}
