package local

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// stat is the file at path, which must exist.
func stat(t *testing.T, path string) os.FileInfo {
	t.Helper()
	fi, err := os.Stat(path)
	must(t, err)
	return fi
}

// loadFile is the state of the database at path, read through a link
// (a name ending in .db).
func loadFile(t *testing.T, path string) *state.State {
	t.Helper()
	kept := filepath.Join(t.TempDir(), "kept.db")
	must(t, os.Link(path, kept))
	s, err := Open(kept).Load()
	must(t, err)
	return s
}

// A push --force over a database that holds only its workspace builds
// the new one beside it and renames it into place: the file replaced is
// the backup itself, nothing else is left beside. A push that fails
// half-way leaves the file, its content and its backup as they were; one
// that erases a person keeps no backup.
func TestPushForceSwapsTheDatabase(t *testing.T) {
	dir := t.TempDir()
	first, second := backendtest.ManyPeople(t, 700), backendtest.ManyPeople(t, 500)
	ws := pushTarget(t, dir, state.DefaultWorkspace, first, nil)
	path := ws.Store.path
	before := stat(t, path)
	second.ErasureWritten() // as read from a file
	if _, err := ws.PushStream(backend.MemoryStream(second, "the second state"), true); err != nil {
		t.Fatal(err)
	}
	if os.SameFile(before, stat(t, path)) {
		t.Fatal("the database was written in place, not swapped")
	}
	if !os.SameFile(before, stat(t, ws.Store.BackupPath())) {
		t.Fatal("the backup is not the file replaced")
	}
	if backendtest.Canon(t, loadFile(t, ws.Store.BackupPath())) != backendtest.Canon(t, first) {
		t.Fatal("the backup is not the state replaced")
	}
	got, err := ws.Load()
	must(t, err)
	if !backendtest.SameCanon(t, got, second) {
		t.Fatal("the state pushed with --force differs")
	}
	if got := files(t, filepath.Dir(path)); !slices.Equal(got, []string{".gitignore", "state.db", "state.db.backup"}) {
		t.Fatalf("beside the state after the swap: %q", got)
	}

	now, backup := stat(t, path), stat(t, ws.Store.BackupPath())
	big := backendtest.ManyPeople(t, backend.StreamBatch+10)
	if _, err := ws.PushStream(halfWay{backend.MemoryStream(big, "a failing state")}, true); err == nil {
		t.Fatal("the failing push succeeded")
	}
	if !os.SameFile(now, stat(t, path)) || !os.SameFile(backup, stat(t, ws.Store.BackupPath())) {
		t.Fatal("a failed push replaced the database or its backup")
	}
	if got, err = ws.Load(); err != nil || !backendtest.SameCanon(t, got, second) {
		t.Fatalf("a failed push changed the state (%v)", err)
	}
	if got := files(t, filepath.Dir(path)); !slices.Equal(got, []string{".gitignore", "state.db", "state.db.backup"}) {
		t.Fatalf("beside the state after a failed push: %q", got)
	}

	gone := first.People["m000007"]
	must(t, ws.RecordErasures([]*state.Suppression{{Keys: state.PersonKeys(gone), At: backendtest.At(30)}}))
	if _, err := ws.PushStream(backend.MemoryStream(first, "a state with a person erased since"), true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ws.Store.BackupPath()); !os.IsNotExist(err) {
		t.Fatalf("a push that erased a person kept a backup (%v)", err)
	}
	if got, err = ws.Load(); err != nil || got.People["m000007"] != nil {
		t.Fatalf("the person erased is pushed (%v)", err)
	}
}

// A push --force while another command holds the database open (here a
// read transaction) waits swapWait, then copies the new database into
// the one in place, in one transaction: the reader keeps its snapshot,
// the backup is the state replaced, the state the one pushed.
func TestPushForceWhileTheStateIsRead(t *testing.T) {
	defer func(w time.Duration) { swapWait = w }(swapWait)
	swapWait = 50 * time.Millisecond
	dir := t.TempDir()
	first, second := backendtest.ManyPeople(t, 700), backendtest.ManyPeople(t, 500)
	second.ErasureWritten()
	ws := pushTarget(t, dir, state.DefaultWorkspace, first, nil)
	path := ws.Store.path
	before := stat(t, path)
	db, err := sql.Open("sqlite", path+sqliteDSN)
	must(t, err)
	defer db.Close()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	must(t, err)
	count := func(q interface {
		QueryRow(string, ...any) *sql.Row
	}) (n int) {
		must(t, q.QueryRow(`SELECT count(*) FROM people`).Scan(&n))
		return n
	}
	if n := count(tx); n != len(first.People) {
		t.Fatalf("the reader sees %d people", n)
	}
	if _, err := ws.PushStream(backend.MemoryStream(second, "the second state"), true); err != nil {
		t.Fatal(err)
	}
	if n := count(tx); n != len(first.People) {
		t.Fatalf("the reader's snapshot changed under it: %d people", n)
	}
	must(t, tx.Rollback())
	if !os.SameFile(before, stat(t, path)) {
		t.Fatal("the database was swapped while a connection held it")
	}
	if n := count(db); n != len(second.People) {
		t.Fatalf("after the push the reader sees %d people", n)
	}
	must(t, db.Close())
	got, err := ws.Load()
	must(t, err)
	if !backendtest.SameCanon(t, got, second) {
		t.Fatal("the state pushed with --force differs")
	}
	if backendtest.Canon(t, loadFile(t, ws.Store.BackupPath())) != backendtest.Canon(t, first) {
		t.Fatal("the backup is not the state replaced")
	}
}

// A push --force whose new database cannot be renamed into place (as on
// a system that does not rename over an open file) copies it in instead:
// the state pushed, the backup the state replaced, no file left beside.
func TestPushForceCopiesInWhatItCannotRename(t *testing.T) {
	dir := t.TempDir()
	first, second := backendtest.ManyPeople(t, 700), backendtest.ManyPeople(t, 500)
	second.ErasureWritten()
	ws := pushTarget(t, dir, state.DefaultWorkspace, first, nil)
	path := ws.Store.path
	before := stat(t, path)
	defer func(f func(string, string) error) { renameOverOpen = f }(renameOverOpen)
	renameOverOpen = func(string, string) error { return errors.New("the file is open") }
	if _, err := ws.PushStream(backend.MemoryStream(second, "the second state"), true); err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, stat(t, path)) {
		t.Fatal("the database was swapped")
	}
	got, err := ws.Load()
	must(t, err)
	if !backendtest.SameCanon(t, got, second) {
		t.Fatal("the state pushed with --force differs")
	}
	if backendtest.Canon(t, loadFile(t, ws.Store.BackupPath())) != backendtest.Canon(t, first) {
		t.Fatal("the backup is not the state replaced")
	}
	if got := files(t, filepath.Dir(path)); !slices.Equal(got, []string{".gitignore", "state.db", "state.db.backup"}) {
		t.Fatalf("beside the state after the copy: %q", got)
	}
}

// removing is a stream that removes the database at path while its
// people are read.
type removing struct {
	backend.Stream
	path string
}

func (r removing) People(fn func([]*state.Person) error) error {
	removeDB(r.path)
	return r.Stream.People(fn)
}

// A push --force over a database removed by hand while it builds the new
// one puts the new one in place all the same.
func TestPushForceOverADatabaseRemovedMeanwhile(t *testing.T) {
	dir := t.TempDir()
	first, second := backendtest.ManyPeople(t, 700), backendtest.ManyPeople(t, 500)
	second.ErasureWritten()
	ws := pushTarget(t, dir, state.DefaultWorkspace, first, nil)
	if _, err := ws.PushStream(removing{backend.MemoryStream(second, "the second state"), ws.Store.path}, true); err != nil {
		t.Fatal(err)
	}
	got, err := ws.Load()
	must(t, err)
	if !backendtest.SameCanon(t, got, backendtest.ManyPeople(t, 500)) {
		t.Fatal("the state pushed differs")
	}
}
