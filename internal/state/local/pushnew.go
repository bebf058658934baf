package local

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// A push into a workspace whose database does not exist yet builds it
// under a temporary name beside it, without a write-ahead log and without
// syncs, then syncs it once and links it into place: the 1.4 GB of a
// state of 3,000,000 people are written once instead of twice (into the
// log, then into the database), a fifth of the push's CPU
// (docs/performance.md). Until the link the workspace has no database, as
// before the push; a push killed or failed leaves it so, and its
// temporary file is removed (by the next push when killed).

// bulkDSN is sqliteDSN for a database no other command sees until it is
// complete: a rollback journal in memory (only the pages of the tables
// made empty are journaled), no sync.
const bulkDSN = "?_pragma=journal_mode(MEMORY)&_pragma=synchronous(OFF)&_pragma=foreign_keys(1)" +
	"&_pragma=secure_delete(1)&_pragma=busy_timeout(10000)&_txlock=immediate"

// pushingPrefix starts the name of a database a push builds.
func pushingPrefix(path string) string { return "." + filepath.Base(path) + ".pushing-" }

// pushNew is pushInto a database d that does not exist: built beside it,
// synced, then linked into place. The caller holds the workspace's lock.
func (ws *Workspace) pushNew(d *dbStore, src backend.Stream) (*backend.Pushed, error) {
	return ws.pushBeside(d, src, 0, func(tmp string, _ bool) error { return linkInPlace(tmp, d.path) })
}

// pushBeside is pushInto a database built beside d's (whose serial is
// serial), synced, then put in place by install (told whether the push
// erased people and removed the copies of the state before); the
// temporary file is removed in any case.
func (ws *Workspace) pushBeside(d *dbStore, src backend.Stream, serial uint64, install func(tmp string, erased bool) error) (*backend.Pushed, error) {
	dir := filepath.Dir(d.path)
	if err := safefile.EnsureDir(dir); err != nil {
		return nil, &safefile.WriteError{Path: d.path, Err: err}
	}
	removeAbandoned(dir, pushingPrefix(d.path))
	tmp := filepath.Join(dir, pushingPrefix(d.path)+state.NewUUID()[:8])
	nd := newDBStore(tmp, d.now)
	nd.ws, nd.dsn, nd.shown = d.ws, bulkDSN, d.path
	pushed, err := ws.pushInto(nd, src, serial)
	if err == nil {
		err = nd.goOnCounting(d)
	}
	if cerr := nd.close(); err == nil {
		err = nd.wrap("writing the state", cerr)
	}
	if err == nil {
		err = syncFile(tmp, d.path)
	}
	if err == nil {
		err = install(tmp, nd.copiesRemoved)
	}
	removeDB(tmp)
	if err != nil {
		return nil, err
	}
	return pushed, nil
}

// syncFile syncs the file at path to the disk (shown names it).
func syncFile(path, shown string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err == nil {
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return &safefile.WriteError{Path: shown, Err: safefile.UnwrapPathErr(err)}
	}
	return nil
}

// linkInPlace links the database tmp as path, which must not exist, and
// syncs the folder. A write-ahead log or shared memory file of an earlier
// database at path (removed by hand) is removed first: SQLite would read
// the log into the new database.
func linkInPlace(tmp, path string) error {
	for _, p := range []string{path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return &safefile.WriteError{Path: p, Err: err}
		}
	}
	if err := os.Link(tmp, path); err != nil {
		return &safefile.WriteError{Path: path, Err: err}
	}
	if err := safefile.SyncDir(filepath.Dir(path)); err != nil {
		return &safefile.WriteError{Path: path, Err: err}
	}
	return nil
}

// goOnCounting raises nd's count of the addresses' changes, a database
// built for d's workspace, past d's: a reader of d who knew its names
// reads nd's again, as after a push in place (sqlstate's
// resetWorkspace).
func (nd *dbStore) goOnCounting(d *dbStore) error {
	was, err := d.addressChanges()
	if err != nil || was < 0 {
		return err
	}
	return nd.write("writing the state", func(w *sqlstate.Writer) error {
		_, err := w.Tx.ExecContext(context.Background(), `UPDATE workspaces SET addresses_changed = addresses_changed + ?2 WHERE name = ?1`, w.WS, was+1)
		return err
	})
}
