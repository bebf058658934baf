package local

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
)

// jsonPath is the JSON state file of earlier versions that the database at
// dbPath replaces (.leadsync/state.json for .leadsync/state.db).
func jsonPath(dbPath string) string { return strings.TrimSuffix(dbPath, DatabaseExt) + ".json" }

// jsonBackupPath is where that file is kept once the database was made
// from it, and jsonJournalBackupPath its journal, when an apply left one.
func jsonBackupPath(dbPath string) string        { return jsonPath(dbPath) + ".backup" }
func jsonJournalBackupPath(dbPath string) string { return jsonPath(dbPath) + ".journal.backup" }

// migrate makes the database from the JSON state file of earlier versions
// beside it, on first use: the file is loaded (its journal replayed), the
// database written whole under a temporary name and linked into place
// (two commands at once make it once: the second link fails and that
// command uses the first's), then the file is renamed to
// state.json.backup (its journal to state.json.journal.backup: its calls
// are in the database) and one note names it. Nothing to do when the
// database exists or there is no file.
func (store *Store) migrate() error {
	from := jsonPath(store.path)
	if store.Exists() || !exists(from) && !exists(from+".journal") {
		return nil
	}
	removeAbandoned(filepath.Dir(store.path), "."+filepath.Base(store.path)+".migrating-")
	old := NewStore(from)
	old.Now = store.Now
	s, err := old.Load()
	if err != nil {
		var je *JournalError
		if errors.As(err, &je) {
			return fmt.Errorf("the state file %s cannot be made into the database %s: %w. Recover the journal first: leadsync state recover --state %s", from, store.path, err, from)
		}
		return fmt.Errorf("the state file %s cannot be made into the database %s: %w", from, store.path, err)
	}
	tmp := filepath.Join(filepath.Dir(store.path), "."+filepath.Base(store.path)+".migrating-"+state.NewUUID()[:8])
	d := newDBStore(tmp, store.now)
	d.ws = store.db.ws
	err = d.replace(s)
	if cerr := d.close(); err == nil {
		err = cerr
	}
	if err != nil {
		removeDB(tmp)
		return err
	}
	if err := os.Link(tmp, store.path); err != nil {
		removeDB(tmp)
		if errors.Is(err, fs.ErrExist) {
			return nil // another command made it meanwhile
		}
		return &safefile.WriteError{Path: store.path, Err: err}
	}
	removeDB(tmp)
	for _, mv := range [][2]string{{from, jsonBackupPath(store.path)}, {from + ".journal", jsonJournalBackupPath(store.path)}} {
		if err := os.Rename(mv[0], mv[1]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return &safefile.WriteError{Path: mv[1], Err: err}
		}
	}
	if err := safefile.SyncDir(filepath.Dir(store.path)); err != nil {
		return &safefile.WriteError{Path: store.path, Err: err}
	}
	if store.Notify != nil {
		store.Notify(fmt.Sprintf("the state file %s is now the SQLite database %s; the file is kept as %s",
			shortPath(from), shortPath(store.path), shortPath(jsonBackupPath(store.path))))
	}
	return nil
}

// removeMigrated removes the copies of a database's state: the state
// before the last push --force, and the JSON state file the database was
// made from (and its journal): after an erasure they still hold the person
// erased.
func (store *Store) removeMigrated() error { return removeCopies(store.path) }

// removeCopies removes the copies of the state of the database at path:
// <path>.backup, state.json.backup and its journal's.
func removeCopies(path string) error {
	for _, p := range []string{path + ".backup", jsonBackupPath(path), jsonJournalBackupPath(path)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return safefile.SyncDir(filepath.Dir(path))
}

// removeAbandoned removes the databases a migration killed before it
// ended left in dir (named prefix...), which hold the people of the state
// they were made from: those not written to for a minute (a migration
// under way writes all the time).
func removeAbandoned(dir, prefix string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > time.Minute {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// removeDB removes a database and the files SQLite keeps beside it.
func removeDB(path string) {
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		os.Remove(p)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// shortPath names a state file by its folder and name (.leadsync/state.db).
func shortPath(p string) string {
	return filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p))
}
