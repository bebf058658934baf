package local

import (
	"cmp"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
	"github.com/leadsync/leadsync/internal/version"
)

// DatabaseExt is the extension of a state kept in a SQLite database (the
// default, .leadsync/state.db); any other state file is the JSON file of
// earlier versions (state.json), still read and written when named.
const DatabaseExt = ".db"

// IsDatabase reports whether the state at path is a SQLite database.
func IsDatabase(path string) bool { return filepath.Ext(path) == DatabaseExt }

// sqliteDSN opens a database in WAL mode with every commit synced
// (synchronous=FULL: a completed call survives a power cut, as the
// journal's fsync did; docs/decisions.md), foreign keys on (a person's
// rows go with them), deleted content overwritten (secure_delete: an
// erased person is not left in free pages) and write transactions that
// take the write lock at BEGIN. The write-ahead log is moved into the
// database once it holds 128 pages (512 KB; SQLite's default is 1,000)
// and cut back to 1 MB after, so that an apply of many calls keeps the
// log small: on a nearly full disk the database's pages fit where the
// log was.
const sqliteDSN = "?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)" +
	"&_pragma=secure_delete(1)&_pragma=busy_timeout(10000)&_pragma=wal_autocheckpoint(128)" +
	"&_pragma=journal_size_limit(1048576)&_txlock=immediate"

// dbStore keeps one workspace's state in a SQLite database
// (internal/state/sqlstate's tables and queries): one transaction per
// completed call, the calls of an apply not folded in yet in the events
// table. The lock, the ledger, the claims and the erasure record stay the
// Store's files.
type dbStore struct {
	path string
	// ws is the workspace column: the name of the local workspace; ""
	// for a file named alone (--state, state push --from): the name it
	// holds, else the default one.
	ws  string
	now func() time.Time

	// dsn, when not "", replaces sqliteDSN (a push into a new file:
	// bulkDSN); shown, when not "", is the path messages name (the file
	// such a push renames into place).
	dsn, shown string

	mu    sync.Mutex
	db    *sql.DB
	seenN int64 // the last recorded call the last Load applied
	// seenCalls is how many recorded calls the last Load applied (while
	// seenN is not 0).
	seenCalls int
	rec       *dbRecorder
	// emptied says the last push emptied the people's tables a page at a
	// time (emptyPeopleAlone).
	emptied bool
	// copiesRemoved says a write erased people and removed the copies of
	// the state before (afterErasure).
	copiesRemoved bool
}

func newDBStore(path string, now func() time.Time) *dbStore {
	return &dbStore{path: path, now: now}
}

// handle opens the database, made (0600, in a folder made as the state's)
// when create and missing; nil without error when it is missing and not
// create.
func (d *dbStore) handle(create bool) (*sql.DB, error) {
	if d.db != nil {
		return d.db, nil
	}
	fi, err := os.Stat(d.path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !create:
		return nil, nil
	case errors.Is(err, fs.ErrNotExist):
		if err := d.create(); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, d.cannotRead(err)
	case fi.IsDir():
		return nil, d.cannotRead(syscall.EISDIR)
	}
	db, err := sql.Open("sqlite", d.path+cmp.Or(d.dsn, sqliteDSN))
	if err != nil {
		return nil, d.cannotRead(err)
	}
	db.SetMaxOpenConns(1)
	if err := retryBusy(func() error { return d.ensureSchema(db) }); err != nil {
		db.Close()
		return nil, err
	}
	if d.ws == "" {
		d.ws = state.DefaultWorkspace
		var name string
		if err := db.QueryRowContext(context.Background(), `SELECT name FROM workspaces ORDER BY name LIMIT 1`).Scan(&name); err == nil {
			d.ws = name
		}
	}
	d.db = db
	return db, nil
}

// create makes an empty database file, private to the user, so that
// SQLite's own files (-wal, -shm) take its mode.
func (d *dbStore) create() error {
	dir := filepath.Dir(d.path)
	if err := safefile.EnsureDir(dir); err != nil {
		return &safefile.WriteError{Path: d.path, Err: err}
	}
	f, err := os.OpenFile(d.path, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return &safefile.WriteError{Path: d.path, Err: err}
	}
	return f.Close()
}

func (d *dbStore) cannotRead(err error) error {
	return fmt.Errorf("cannot read state %s: %w", d.path, safefile.UnwrapPathErr(err))
}

// ensureSchema makes the tables of an empty database and refuses one of a
// newer schema, or a file that is no leadsync state. Two commands may
// find the database empty at once (an apply making it, another
// workspace's apply reading it): the tables are made in a write
// transaction that looks again first.
func (d *dbStore) ensureSchema(db *sql.DB) error {
	ctx := context.Background()
	made, err := d.checkSchema(ctx, db, false)
	if err != nil || made {
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap("making the tables", err)
	}
	defer tx.Rollback()
	if made, err := d.checkSchema(ctx, tx, true); err != nil || made {
		if err == nil {
			// A migration was made (or nothing: another command made
			// the tables or migrated them first).
			return d.wrap("migrating the tables", tx.Commit())
		}
		return err
	}
	if _, err := tx.ExecContext(ctx, sqlstate.SQLiteSchema); err != nil {
		return d.wrap("making the tables", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version, leadsync_version, migrated_at) VALUES (?, ?, ?)`,
		sqlstate.SchemaVersion, version.String(), d.now().UTC().Format(sqlstate.TimeLayout)); err != nil {
		return d.wrap("making the tables", err)
	}
	return d.wrap("making the tables", tx.Commit())
}

// checkSchema reports whether the tables are made; an error for a newer
// schema, or, when locked (in the write transaction that would make them),
// for a database that holds other tables: outside it, another command may
// be making them between two looks.
func (d *dbStore) checkSchema(ctx context.Context, q sqlstate.Querier, locked bool) (bool, error) {
	var n int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'`).Scan(&n); err != nil {
		return false, d.wrap("reading the schema", err)
	}
	if n == 1 {
		var v int
		var by string
		if err := q.QueryRowContext(ctx, `SELECT version, leadsync_version FROM schema_version`).Scan(&v, &by); err != nil {
			return false, d.wrap("reading the schema version", err)
		}
		if v > sqlstate.SchemaVersion {
			return false, fmt.Errorf("the state %s has schema version %d (written by leadsync %s); this leadsync reads version %d or older. Upgrade leadsync to use this state; nothing was changed",
				d.path, v, by, sqlstate.SchemaVersion)
		}
		if v < sqlstate.SchemaVersion && !locked {
			// Migrated in the write transaction that looks again.
			return false, nil
		}
		if v < sqlstate.SchemaVersion {
			return true, d.migrate(ctx, q, v)
		}
		return true, nil
	}
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&n); err != nil {
		return false, d.wrap("reading the schema", err)
	}
	if n > 0 && locked {
		return false, fmt.Errorf("cannot read state %s: it is a SQLite database but no leadsync state (it has no schema_version table); nothing was changed", d.path)
	}
	return false, nil
}

// migrate takes the tables of schema version v to this build's, in the
// write transaction q, which the caller commits.
func (d *dbStore) migrate(ctx context.Context, q sqlstate.Querier, v int) error {
	for ; v < sqlstate.SchemaVersion; v++ {
		if _, err := q.ExecContext(ctx, sqlstate.SQLiteMigrations[v]); err != nil {
			return d.wrap(fmt.Sprintf("migrating the tables from schema version %d", v), err)
		}
	}
	_, err := q.ExecContext(ctx, `UPDATE schema_version SET version = ?, leadsync_version = ?, migrated_at = ?`,
		sqlstate.SchemaVersion, version.String(), d.now().UTC().Format(sqlstate.TimeLayout))
	return d.wrap("migrating the tables", err)
}

// wrap names the database in an error; a full disk or a folder that
// cannot be written is a *safefile.WriteError with its advice.
func (d *dbStore) wrap(what string, err error) error {
	if err == nil {
		return nil
	}
	path := cmp.Or(d.shown, d.path)
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_FULL:
			return &safefile.WriteError{Path: path, Err: syscall.ENOSPC}
		case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM, sqlite3.SQLITE_CANTOPEN:
			return &safefile.WriteError{Path: path, Err: fmt.Errorf("%s: %w", strings.TrimSpace(se.Error()), syscall.EACCES)}
		case sqlite3.SQLITE_IOERR:
			return &safefile.WriteError{Path: path, Err: err}
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("cannot read state %s: it is damaged or no SQLite database (%s); leadsync did not change it. Restore it from a copy", path, sqlite.ErrorCodeString[se.Code()])
		}
	}
	return fmt.Errorf("%s: %s: %w", path, what, err)
}

// load reads the state; a missing database gives an empty state (and
// nothing is written).
func (d *dbStore) load() (*state.State, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.closeIdle()
	db, err := d.handle(false)
	if err != nil || db == nil {
		if err == nil {
			s := state.New()
			s.Track()
			return s, nil
		}
		return nil, err
	}
	var s *state.State
	var folded sqlstate.Folded
	var found bool
	err = retryBusy(func() error {
		var err error
		s, folded, found, err = d.read(db)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !found {
		s = state.New()
		s.Track()
	}
	d.seenN, d.seenCalls = folded.Last, folded.Calls
	return s, nil
}

// read reads the state in one read transaction (a snapshot).
func (d *dbStore) read(db *sql.DB) (*state.State, sqlstate.Folded, bool, error) {
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, sqlstate.Folded{}, false, d.wrap("starting a read", err)
	}
	defer tx.Rollback()
	r := &sqlstate.Reader{D: sqlstate.SQLite, Q: tx, WS: d.ws}
	s, folded, found, err := r.Read(ctx)
	if err != nil {
		return nil, sqlstate.Folded{}, false, d.wrap("reading the state", err)
	}
	return s, folded, found, nil
}

// retryBusy runs f again while it fails with SQLITE_BUSY, for up to 10
// seconds: SQLite's busy timeout does not cover every moment another
// connection holds the database (one making it, switching it to WAL or
// recovering its log answers at once).
func retryBusy(f func() error) error {
	deadline := time.Now().Add(10 * time.Second)
	wait := 5 * time.Millisecond
	for {
		err := f()
		var se *sqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY || time.Now().After(deadline) {
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// write runs one write transaction; on error nothing is written.
func (d *dbStore) write(what string, f func(w *sqlstate.Writer) error) error {
	return d.writeKeyed(what, true, f)
}

// writeKeyed is write with the foreign keys enforced row by row when
// keyed; else they are off for the transaction and checked once at its
// end (a push: deleting a person made SQLite look up their enrichment
// and history, 3,000,000 times).
func (d *dbStore) writeKeyed(what string, keyed bool, f func(w *sqlstate.Writer) error) error {
	return d.writeAttached(what, keyed, "", f)
}

// writeAttached is writeKeyed with the database of the URI attach (when
// not "") attached as the schema srcSchema for the transaction: outside
// a transaction, as SQLite requires, and detached after it.
func (d *dbStore) writeAttached(what string, keyed bool, attach string, f func(w *sqlstate.Writer) error) error {
	db, err := d.handle(true)
	if err != nil {
		return err
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return d.wrap(what, err)
	}
	defer conn.Close()
	if !keyed {
		// Set outside the transaction: inside one the pragma does nothing.
		if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
			return d.wrap(what, err)
		}
		defer keysOn(ctx, conn)
	}
	if attach != "" {
		if _, err := conn.ExecContext(ctx, `ATTACH DATABASE ? AS `+srcSchema, attach); err != nil {
			return fmt.Errorf("%w: %v", errNotCopied, err)
		}
		defer detach(ctx, conn)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap(what, err)
	}
	defer tx.Rollback()
	w := &sqlstate.Writer{D: sqlstate.SQLite, Tx: tx, Conn: conn, WS: d.ws, Version: version.String()}
	if err = f(w); err == nil && !keyed {
		err = checkKeys(ctx, tx)
	}
	if err != nil {
		var le *sqlstate.LineageError
		if errors.As(err, &le) {
			return fmt.Errorf("%s %s", d.path, err)
		}
		return d.wrap(what, err)
	}
	return d.wrap(what, tx.Commit())
}

// keysOn enforces the foreign keys on conn again, or has database/sql
// discard the connection.
func keysOn(ctx context.Context, conn *sql.Conn) {
	if _, err := conn.ExecContext(ctx, `PRAGMA foreign_keys = ON`); err != nil {
		conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}

// checkKeys fails when a row of tx refers to a row that does not exist.
func checkKeys(ctx context.Context, tx *sql.Tx) error {
	var table, parent string
	var rowid sql.NullInt64
	var fk int
	err := tx.QueryRowContext(ctx, `PRAGMA foreign_key_check`).Scan(&table, &rowid, &parent, &fk)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return err
	}
	return fmt.Errorf("a row of %s refers to a row of %s that does not exist; nothing was written", table, parent)
}

// flush writes what s changed since the last flush plus what fo asks, in
// one transaction, and returns the serial; on error the changes are kept
// for the next flush. The caller holds d.mu.
func (d *dbStore) flush(s *state.State, fo sqlstate.FlushOpts) (uint64, error) {
	return d.flushCtx(context.Background(), s, fo)
}

// flushCtx is flush whose statements stop when ctx is done (the
// transaction is rolled back, the changes kept).
func (d *dbStore) flushCtx(ctx context.Context, s *state.State, fo sqlstate.FlushOpts) (uint64, error) {
	ch := s.TakeChanges()
	fo.Created = sqlstate.SQLite.TimeValue(d.now())
	var serial uint64
	err := d.write("writing the state", func(w *sqlstate.Writer) error {
		var err error
		serial, err = w.Flush(ctx, s, ch, fo)
		return err
	})
	if err != nil {
		s.PutBackChanges(ch)
		return 0, err
	}
	return serial, d.afterErasure(s)
}

// afterErasure, once a write removed people (forget, retention), moves
// the WAL's pages into the database and empties it, so that no copy of an
// erased person is left in the WAL (deleted content in the database
// itself is overwritten: secure_delete).
func (d *dbStore) afterErasure(s *state.State) error {
	if !s.PeopleErased() {
		return nil
	}
	var busy, logPages, moved int
	if err := d.db.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logPages, &moved); err != nil {
		return d.wrap("emptying the write-ahead log", err)
	}
	if busy != 0 {
		return fmt.Errorf("the person is erased from the state %s, but a command reading it meanwhile kept its write-ahead log %s-wal, which still holds them, from being emptied: run the command again", d.path, d.path)
	}
	// The copies of the state before (push --force, the state.json the
	// database was made from) still hold them.
	if err := removeCopies(cmp.Or(d.shown, d.path)); err != nil {
		return &safefile.WriteError{Path: cmp.Or(d.shown, d.path) + ".backup", Err: err}
	}
	d.copiesRemoved = true
	s.ErasureWritten()
	return nil
}

// commit writes s: what changed since it was loaded (a state that does
// not track its changes replaces the stored one), folds the recording in
// and raises the serial.
func (d *dbStore) commit(s *state.State) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.closeIdle()
	if r := d.rec; r != nil && !r.closed {
		if r.s != s {
			return fmt.Errorf("commit: the recording is open for another state value")
		}
		r.closed = true
	}
	if r := d.rec; r != nil && r.s == s && r.failed {
		return errCheckpointFailed(d.path)
	}
	if !s.Tracking() {
		return d.replace(s)
	}
	fo := sqlstate.FlushOpts{FoldSeen: d.seenN, Bump: true, Meta: true}
	if r := d.rec; r != nil && r.s == s {
		fo.Journal, fo.FoldOwn = r.id, true
	}
	serial, err := d.flush(s, fo)
	if err != nil {
		return err
	}
	d.seenN = 0
	s.Serial, s.LeadsyncVersion, s.FormatVersion, s.Journal = serial, version.String(), state.FormatVersion, nil
	return nil
}

// replace makes s the whole stored state with its serial raised (a push,
// a state that was not loaded from here).
func (d *dbStore) replace(s *state.State) error {
	s.Normalize()
	prevSerial, prevVersion, prevFormat, prevMark := s.Serial, s.LeadsyncVersion, s.FormatVersion, s.Journal
	s.Serial++
	s.LeadsyncVersion, s.FormatVersion, s.Journal = version.String(), state.FormatVersion, nil
	err := d.write("writing the state", func(w *sqlstate.Writer) error {
		return w.Replace(context.Background(), s, sqlstate.SQLite.TimeValue(d.now()))
	})
	if err == nil {
		err = d.afterErasure(s)
	}
	if err != nil {
		s.Serial, s.LeadsyncVersion, s.FormatVersion, s.Journal = prevSerial, prevVersion, prevFormat, prevMark
		return err
	}
	d.seenN = 0
	return nil
}

func (d *dbStore) save(s *state.State) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.closeIdle()
	return d.replace(s)
}

// openJournal starts recording the calls of one apply that will change s
// (from load, under the lock): the calls a killed apply left, which load
// applied to s, are written into the tables first, and the database is
// made when missing.
func (d *dbStore) openJournal(s *state.State) (*dbRecorder, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rec != nil && !d.rec.closed {
		return nil, fmt.Errorf("a recording is already open for %s", d.path)
	}
	if !s.Tracking() {
		return nil, fmt.Errorf("OpenJournal: the state was not loaded from %s", d.path)
	}
	if _, err := d.flush(s, sqlstate.FlushOpts{FoldSeen: d.seenN}); err != nil {
		return nil, err
	}
	d.seenN = 0
	d.rec = &dbRecorder{d: d, s: s, id: sqlstate.NewID()}
	return d.rec, nil
}

// pending reports whether calls of an interrupted apply wait in the
// events table.
func (d *dbStore) pending() bool {
	n := 0
	err := d.withIdle(func(db *sql.DB) error {
		return db.QueryRowContext(context.Background(), `SELECT count(*) FROM events WHERE workspace = ?`, d.ws).Scan(&n)
	})
	return err == nil && n > 0
}

// withIdle runs f on d's database under d.mu, and closes the database
// after unless an apply records into it (closeIdle). Without a database
// (none made yet) f is not run and the answer is nil.
func (d *dbStore) withIdle(f func(db *sql.DB) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.closeIdle()
	db, err := d.handle(false)
	if err != nil || db == nil {
		return err
	}
	return f(db)
}

// closeIdle closes the database unless an apply records into it: a
// command holds it open only while it writes, and the last to close it
// moves the write-ahead log into it and removes the log, so that the
// state is one file between commands. The caller holds d.mu.
func (d *dbStore) closeIdle() {
	if d.db != nil && (d.rec == nil || d.rec.closed) {
		d.db.Close()
		d.db = nil
	}
}

// close closes the database.
func (d *dbStore) close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.db == nil {
		return nil
	}
	err := d.db.Close()
	d.db = nil
	return err
}
