package local

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// A push with --force over a database that holds only its workspace's
// rows builds the new database beside it, as a push into a workspace
// without one does (pushNew), and then swaps it in: the database replaced
// becomes the backup by a rename. Nothing is written through the
// write-ahead log, nothing deleted, nothing copied to keep the backup
// (docs/performance.md).
//
// A file renamed while another connection holds it would split the
// state: that connection keeps the old file, with the log and shared
// memory files named after the path. So the swap first takes the
// database out of WAL mode, which SQLite allows only when no other
// connection has it open, and renames under an exclusive lock, which
// keeps any connection opened meanwhile from reading until the new file
// is in place. While another command keeps the database open (swapWait),
// the new database's pages are copied into it instead, in one
// transaction through its log, its backup kept first as before.

// swapWait is how long a push waits for other connections to the
// database to close before it copies the new database into it instead.
var swapWait = 10 * time.Second

// renameOverOpen renames the new database over the one open (a test
// fails it, as a system that cannot rename over an open file does).
var renameOverOpen = os.Rename

// pushSwapped is pushInto d (which exists, under --force) built beside
// and swapped in; done is false when d holds another workspace's rows:
// nothing was written then, and the push writes in place.
func (ws *Workspace) pushSwapped(d *dbStore, src backend.Stream, serial uint64) (pushed *backend.Pushed, done bool, err error) {
	if readsFile(src, d.path) {
		// Its read would keep the swap waiting: pushed in place.
		return nil, false, nil
	}
	alone, err := d.holdsOnlyItsOwn()
	if err != nil {
		return nil, true, fmt.Errorf("%w; nothing was copied", err)
	}
	if !alone {
		return nil, false, nil
	}
	pushed, err = ws.pushBeside(d, src, serial, d.swapIn)
	return pushed, true, err
}

// readsFile reports whether src reads the database at path.
func readsFile(src backend.Stream, path string) bool {
	if es, ok := src.(*erasedStream); ok {
		src = es.Stream
	}
	ds, ok := src.(*dbStream)
	if !ok {
		return false
	}
	a, err := os.Stat(ds.d.path)
	b, berr := os.Stat(path)
	return err == nil && berr == nil && os.SameFile(a, b)
}

// holdsOnlyItsOwn reports whether no table of d holds another
// workspace's rows.
func (d *dbStore) holdsOnlyItsOwn() (bool, error) {
	only := false
	err := d.withIdle(func(db *sql.DB) error {
		for _, t := range sqlstate.WorkspaceTables {
			var others bool
			q := `SELECT EXISTS (SELECT 1 FROM ` + t.Name + ` WHERE ` + t.Column + ` < ?1) OR EXISTS (SELECT 1 FROM ` + t.Name + ` WHERE ` + t.Column + ` > ?1)`
			err := retryBusy(func() error { return db.QueryRowContext(context.Background(), q, d.ws).Scan(&others) })
			if err != nil || others {
				return d.wrap("reading the state", err)
			}
		}
		only = true
		return nil
	})
	return only, err
}

// swapIn makes the complete, synced database tmp the database of d: the
// file renamed over it, the one replaced kept as its backup, when no
// other connection has it open within swapWait; else its pages copied
// into it. The backup is removed after all when dropBackup (the push
// erased people: no copy of them is kept).
func (d *dbStore) swapIn(tmp string, dropBackup bool) error {
	swapped, err := d.renameOver(tmp)
	if err == nil && !swapped {
		if err = d.copyToBackup(); err == nil {
			err = d.restoreFrom(tmp)
		}
	}
	if err == nil && dropBackup {
		if err = removeCopies(d.path); err != nil {
			err = &safefile.WriteError{Path: d.path + ".backup", Err: err}
		}
	}
	return err
}

// renameOver renames tmp over d's file when it can have the database to
// itself (false when another connection keeps it open for swapWait, or
// the rename cannot be made).
func (d *dbStore) renameOver(tmp string) (bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.close0()
	db, err := d.handle(false)
	switch {
	case err != nil:
		return false, err
	case db == nil: // removed meanwhile
		return true, linkInPlace(tmp, d.path)
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return false, d.wrap("writing the state", err)
	}
	defer conn.Close()
	alone, err := outOfWAL(ctx, conn)
	if err != nil || !alone {
		return false, d.wrap("writing the state", err)
	}
	// A command that opens the file from now on waits on this lock: after
	// the rename it opens the new file. Without the lock (a reader came
	// first after all), the pages are copied in instead.
	if _, err := conn.ExecContext(ctx, `BEGIN EXCLUSIVE`); err != nil {
		return false, nil
	}
	defer conn.ExecContext(ctx, `ROLLBACK`)
	return renameKeeping(tmp, d.path)
}

// outOfWAL takes the database of conn out of WAL mode, which moves its
// log into it and removes the log and shared memory files: false while
// another connection has it open (SQLite refuses then), tried again
// until swapWait passed.
func outOfWAL(ctx context.Context, conn *sql.Conn) (bool, error) {
	deadline := time.Now().Add(swapWait)
	wait := 5 * time.Millisecond
	for {
		var mode string
		err := conn.QueryRowContext(ctx, `PRAGMA journal_mode = DELETE`).Scan(&mode)
		var se *sqlite.Error
		switch {
		case err == nil:
			return mode == "delete", nil
		case !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY:
			return false, err
		case time.Now().After(deadline):
			return false, nil
		}
		time.Sleep(wait)
		wait = min(2*wait, 200*time.Millisecond)
	}
}

// renameKeeping renames tmp over path, the file there kept as
// path.backup, and syncs the folder. A link keeps the file replaced
// until it has its name: path always names a complete database. False
// without error when tmp could not take its place (a system that does
// not rename over an open file): nothing changed.
func renameKeeping(tmp, path string) (bool, error) {
	kept := path + ".backup.tmp"
	os.Remove(kept)
	if err := os.Link(path, kept); err != nil {
		return false, nil
	}
	if err := renameOverOpen(tmp, path); err != nil {
		os.Remove(kept)
		return false, nil
	}
	err := os.Rename(kept, path+".backup")
	if serr := safefile.SyncDir(filepath.Dir(path)); err == nil {
		err = serr
	}
	if err != nil {
		return true, fmt.Errorf("the state is pushed, but its backup is not kept: %w", &safefile.WriteError{Path: path + ".backup", Err: err})
	}
	return true, nil
}

// restoreFrom copies the database tmp into d's, page by page, in one
// transaction (SQLite's online backup, read back).
func (d *dbStore) restoreFrom(tmp string) error {
	return d.withIdle(func(db *sql.DB) error {
		return d.wrap("writing the state", pageCopy(db, tmp, true))
	})
}

// close0 closes d's database whatever holds it: after a swap the handle
// is the file replaced. The caller holds d.mu.
func (d *dbStore) close0() {
	if d.db != nil {
		d.db.Close()
		d.db = nil
	}
}
