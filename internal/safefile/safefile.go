package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// EnsureDir creates a folder of personal data (the state's, which the
// field catalog's cache shares) when missing: 0700, with a .gitignore of
// "*". A folder named .leadsync gets that .gitignore whenever it has none:
// state holds personal data and must not be committed by accident. A
// .gitignore already there is left alone.
func EnsureDir(dir string) error {
	created := false
	if fi, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		created = true
	} else if err != nil {
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a directory", dir)
	}
	if created || filepath.Base(dir) == ".leadsync" {
		gi := filepath.Join(dir, ".gitignore")
		if _, err := os.Lstat(gi); errors.Is(err, fs.ErrNotExist) {
			if err := os.WriteFile(gi, []byte("# leadsync state holds personal data: never commit it.\n*\n"), 0o600); err != nil {
				return err
			}
		}
	}
	return nil
}

// isSyncUnsupported reports errors of file systems that cannot sync a
// folder; the rename is as durable as they make it.
func isSyncUnsupported(err error) bool {
	return errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP)
}

// SyncDir makes a rename or create in dir durable. A file system that
// cannot sync a folder is no error: the rename is as durable as it makes
// it.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) && !isSyncUnsupported(err) {
		return err
	}
	return nil
}

// WriteFile writes b to path atomically, as the state file is written: a
// temporary file in the same folder, mode 0600, synced, renamed over the
// old one, the folder synced. The folder is made with EnsureDir. On error
// the old file is intact, and the error is a *WriteError.
func WriteFile(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := EnsureDir(dir); err != nil {
		return &WriteError{Path: path, Err: err}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return &WriteError{Path: path, Err: err}
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return &WriteError{Path: path, Err: err}
	}
	if _, err := tmp.Write(b); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return &WriteError{Path: path, Err: err}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return &WriteError{Path: path, Err: err}
	}
	if err := SyncDir(dir); err != nil {
		return &WriteError{Path: path, Err: err}
	}
	return nil
}

// WriteError is returned when a file of the working copy (the state, its
// journal or lock, the export record) cannot be written. Whatever was on
// disk before is still there.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string {
	hint := ""
	switch {
	case errors.Is(e.Err, syscall.ENOSPC), errors.Is(e.Err, syscall.EDQUOT):
		hint = ": the disk is full; free some space and run the command again"
	case errors.Is(e.Err, fs.ErrPermission), errors.Is(e.Err, syscall.EROFS):
		hint = ": permission denied; make the folder writable for this user and run the command again"
	}
	return fmt.Sprintf("cannot write %s: %v%s (the previous file is unchanged)", e.Path, UnwrapPathErr(e.Err), hint)
}

func (e *WriteError) Unwrap() error { return e.Err }

// UnwrapPathErr drops the path an *fs.PathError repeats (often a temp file
// name the user never sees).
func UnwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
