package local

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
	"github.com/leadsync/leadsync/internal/state/statefile"
	"github.com/leadsync/leadsync/internal/version"
)

// state push reads its source and writes its target a batch of people at
// a time (backend.Stream), so that a state of millions of people is
// copied in bounded memory: a database is read in batches in one read
// transaction and written in one write transaction. A JSON state file
// (the format of earlier versions) is read whole and written whole.

var (
	_ backend.Streamer     = localBackend{}
	_ backend.Streamer     = (*Workspace)(nil)
	_ backend.StreamPusher = (*Workspace)(nil)
)

// OpenStream reads the state file as a backend.Stream: a database in
// batches, from one snapshot held until Close; a JSON state file, or a
// database that holds calls of an interrupted apply not folded in yet,
// loaded whole.
func (b localBackend) OpenStream() (backend.Stream, error) {
	if _, err := os.Stat(b.JournalPath()); b.db == nil && errors.Is(err, fs.ErrNotExist) {
		st, err := b.openFileStream(b.Describe())
		if err != nil || st != nil {
			return st, err
		}
	}
	if b.db != nil {
		if err := b.Store.migrate(); err != nil {
			return nil, err
		}
		st, err := b.db.openSource(b.Describe())
		if err != nil || st != nil {
			return st, err
		}
	}
	s, err := b.Store.Load()
	if err != nil {
		return nil, err
	}
	return backend.MemoryStream(s, b.Describe()), nil
}

// OpenStream reads the workspace's state as Load does (its epoch, the
// erasure record): a database in batches (the people the record erases
// left out), a JSON state file whole.
func (ws *Workspace) OpenStream() (backend.Stream, error) {
	if !ws.set.Exists(ws.name) {
		return nil, ws.missing()
	}
	if ws.db != nil {
		if err := ws.Store.migrate(); err != nil {
			return nil, err
		}
		st, err := ws.db.openStream(ws.Describe())
		if err != nil {
			return nil, err
		}
		if st != nil {
			h := st.Header()
			h.Epoch = ws.set.epoch(ws.name)
			entries, err := ws.Erasures()
			var erased map[string]bool
			if err == nil {
				erased, err = h.HonourStreamed(entries, st.People)
			}
			if err != nil {
				st.Close()
				return nil, err
			}
			return &erasedStream{Stream: st, erased: erased}, nil
		}
	}
	s, err := ws.Load()
	if err != nil {
		return nil, err
	}
	return backend.MemoryStream(s, ws.Describe()), nil
}

// erasedStream leaves out the people an erasure record erased.
type erasedStream struct {
	backend.Stream
	erased map[string]bool
}

func (e *erasedStream) People(fn func([]*state.Person) error) error {
	return e.Stream.People(func(b []*state.Person) error {
		keep := b[:0]
		for _, p := range b {
			if !e.erased[p.ID] {
				keep = append(keep, p)
			}
		}
		return fn(keep)
	})
}

// fileStream is a JSON state file read as a backend.Stream (its header,
// then its people a piece of the file at a time); it holds the file open
// until Close, so that a write renamed over it meanwhile is not read.
type fileStream struct {
	*statefile.FileStream
	f    *os.File
	what string
}

// openFileStream starts the read; nil without error when the file is to
// be read whole (small, or not in leadsync's layout).
func (store *Store) openFileStream(what string) (backend.Stream, error) {
	f, err := os.Open(store.path)
	if err != nil {
		return nil, nil // Load says what is wrong
	}
	fi, err := f.Stat()
	var stream *statefile.FileStream
	if err == nil && !fi.IsDir() {
		stream, err = statefile.OpenFileStream(f, fi.Size())
	}
	if err != nil || stream == nil {
		f.Close()
		return nil, nil // read whole by Load, which says what is wrong
	}
	return &fileStream{FileStream: stream, f: f, what: what}, nil
}

func (s *fileStream) Describe() string { return s.what }
func (s *fileStream) Close() error     { return s.f.Close() }

// People passes the people; a file not in leadsync's layout is to be
// read whole (backend.ErrReadWhole).
func (s *fileStream) People(fn func([]*state.Person) error) error {
	err := s.FileStream.People(fn)
	if errors.Is(err, statefile.ErrLayout) {
		return fmt.Errorf("%s: %w: %w", s.what, err, backend.ErrReadWhole)
	}
	return err
}

// dbStream is a database read as a backend.Stream; it holds the store's
// mutex and a read transaction until Close.
type dbStream struct {
	d      *dbStore
	tx     *sql.Tx
	r      *sqlstate.Reader
	header *state.State
	what   string
	// passes counts the passes of People (a push copied in SQLite makes
	// none).
	passes int
	// done, when not nil, removes the migrated copy read (readable).
	done func()
}

// openStream starts the read; nil without error when the state must be
// loaded whole instead (calls of an interrupted apply wait).
func (d *dbStore) openStream(what string) (backend.Stream, error) {
	d.mu.Lock()
	db, err := d.handle(false)
	if err != nil || db == nil {
		d.closeIdle()
		d.mu.Unlock()
		return nil, err
	}
	ctx := context.Background()
	var st *dbStream
	err = retryBusy(func() error {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		r := &sqlstate.Reader{D: sqlstate.SQLite, Q: tx, WS: d.ws}
		h, pending, found, err := r.ReadHeader(ctx)
		if err != nil || pending || !found {
			tx.Rollback()
			return err
		}
		st = &dbStream{d: d, tx: tx, r: r, header: h, what: what}
		return nil
	})
	if err != nil || st == nil {
		d.closeIdle()
		d.mu.Unlock()
		return nil, d.wrap("reading the state", err)
	}
	return st, nil
}

func (s *dbStream) Describe() string     { return s.what }
func (s *dbStream) Header() *state.State { return s.header }

// rereadHeader reads the header again, from the stream's snapshot,
// when pushCopied let go of it.
func (s *dbStream) rereadHeader() error {
	if s.header != nil {
		return nil
	}
	h, _, _, err := s.r.ReadHeader(context.Background())
	if err != nil {
		return s.d.wrap("reading the state", err)
	}
	s.header = h
	return nil
}

func (s *dbStream) People(fn func([]*state.Person) error) error {
	s.passes++
	var ferr error
	err := s.r.PeopleBatches(context.Background(), backend.StreamBatch, func(b []*state.Person) error {
		ferr = fn(b)
		return ferr
	})
	if ferr != nil {
		return ferr
	}
	return s.d.wrap("reading the state", err)
}

func (s *dbStream) Close() error {
	if s.tx == nil {
		return nil
	}
	s.tx.Rollback()
	s.tx = nil
	s.d.closeIdle()
	s.d.mu.Unlock()
	if s.done != nil {
		s.done()
	}
	return nil
}

// Push makes s the workspace's state (PushStream of s).
func (ws *Workspace) Push(s *state.State, force bool) error {
	_, err := ws.PushStream(backend.MemoryStream(s, "the state pushed"), force)
	return err
}

// PushStream makes the state src reads the workspace's state, keeping its
// lineage (as the pg backend's push does): the workspace must exist (the
// default one always does) and hold no searches, profiles or people unless
// force. The caller holds the workspace's lock. The calls of an
// interrupted apply the workspace holds are folded into its state first,
// and what is replaced is kept as its backup; a workspace whose state
// cannot be read is refused, force or not. The serial goes past both
// states' serials. A database takes the people a batch at a time, in one
// transaction; a JSON state file is written whole.
func (ws *Workspace) PushStream(src backend.Stream, force bool) (*backend.Pushed, error) {
	if !ws.set.Exists(ws.name) {
		return nil, ws.missing()
	}
	store := ws.Store
	if store.db == nil {
		return ws.pushWhole(src, force)
	}
	if err := store.migrate(); err != nil {
		return nil, fmt.Errorf("%w; nothing was copied", err)
	}
	d := store.db
	if d.pending() {
		cur, err := store.Load()
		if err != nil {
			return nil, fmt.Errorf("%w; nothing was copied", err)
		}
		if err := d.commit(cur); err != nil {
			return nil, err
		}
	}
	people, records, serial, err := d.holdings()
	if err != nil {
		return nil, fmt.Errorf("%w; nothing was copied", err)
	}
	if !force && people+records > 0 {
		return nil, &backend.NotEmptyError{Where: ws.Describe(), People: people, Blocks: records}
	}
	if people+records > 0 {
		if pushed, done, err := ws.pushSwapped(d, src, serial); done {
			return pushed, err
		}
		if err := d.copyToBackup(); err != nil {
			return nil, err
		}
	}
	if !exists(d.path) {
		return ws.pushNew(d, src)
	}
	return ws.pushInto(d, src, serial)
}

// pushInto writes the state src reads into the database d of ws (whose
// serial is serial): copied in SQLite when src is a database too
// (pushCopied), else a batch of people at a time.
func (ws *Workspace) pushInto(d *dbStore, src backend.Stream, serial uint64) (*backend.Pushed, error) {
	if ds, ok := src.(*dbStream); ok {
		pushed, err := ws.pushCopied(d, ds, serial)
		if !errors.Is(err, errNotCopied) {
			return pushed, err
		}
		if err := ds.rereadHeader(); err != nil {
			return nil, err
		}
	}
	ps, err := ws.preparePush(src)
	if err != nil {
		return nil, err
	}
	h := ps.Header
	h.Serial = max(h.Serial, serial) + 1
	h.LeadsyncVersion, h.FormatVersion, h.Journal = version.String(), state.FormatVersion, nil
	if err := d.pushStream(ps); err != nil {
		return nil, err
	}
	return &ps.Pushed, nil
}

// preparePush checks src and applies the working copy's erasure record to
// it: an old state does not bring back a person erased since.
func (ws *Workspace) preparePush(src backend.Stream) (*backend.PushSource, error) {
	entries, err := ws.Erasures()
	if err != nil {
		return nil, fmt.Errorf("%w; nothing was copied", err)
	}
	return backend.PreparePush(src, entries)
}

// holdings counts the people and the search and profile records of the
// workspace, and gives its serial.
func (d *dbStore) holdings() (people, records int, serial uint64, err error) {
	const q = `SELECT (SELECT count(*) FROM people WHERE workspace = ?1),
		(SELECT count(*) FROM searches WHERE workspace = ?1) + (SELECT count(*) FROM profile_reads WHERE workspace = ?1),
		COALESCE((SELECT serial FROM workspaces WHERE name = ?1), 0)`
	var s int64
	err = d.withIdle(func(db *sql.DB) error {
		err := retryBusy(func() error {
			return db.QueryRowContext(context.Background(), q, d.ws).Scan(&people, &records, &s)
		})
		return d.wrap("reading the state", err)
	})
	return people, records, uint64(s), err
}

// addressChanges is the workspace's count of the addresses' changes (-1
// without its database or row).
func (d *dbStore) addressChanges() (int64, error) {
	n := int64(-1)
	err := d.withIdle(func(db *sql.DB) error {
		err := retryBusy(func() error {
			return db.QueryRowContext(context.Background(), `SELECT coalesce((SELECT addresses_changed FROM workspaces WHERE name = ?1), -1)`, d.ws).Scan(&n)
		})
		return d.wrap("reading the state", err)
	})
	return n, err
}

// pushStream writes ps as the whole state in one transaction. An error
// of the source (a broken state) is returned as it is; nothing is
// written.
func (d *dbStore) pushStream(ps *backend.PushSource) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.closeIdle()
	var srcErr error
	people := func(fn func([]*state.Person) error) error {
		ps.ReleaseLists() // their rows are written
		var werr error
		err := ps.People(func(b []*state.Person) error {
			werr = fn(b)
			return werr
		})
		if err != nil && werr == nil {
			srcErr = err
		}
		return err
	}
	err := d.writeKeyed("writing the state", false, func(w *sqlstate.Writer) error {
		ctx := context.Background()
		rebuild, err := dropIndexes(ctx, w.Tx)
		if err == nil {
			d.emptied, err = emptyPeopleAlone(ctx, w.Tx, w.WS)
		}
		if err != nil {
			return err
		}
		if err := w.ReplaceStream(ctx, ps.Header, people, sqlstate.SQLite.TimeValue(d.now())); err != nil {
			return err
		}
		return rebuild()
	})
	if srcErr != nil {
		return srcErr
	}
	if err == nil {
		err = d.afterErasure(ps.Header)
	}
	d.seenN = 0
	return err
}

// pushWhole is PushStream into a JSON state file: the state is read whole
// and saved whole.
func (ws *Workspace) pushWhole(src backend.Stream, force bool) (*backend.Pushed, error) {
	store := ws.Store
	cur, err := store.Load()
	if err != nil {
		return nil, fmt.Errorf("%w; nothing was copied", err)
	}
	if !force && !cur.IsEmpty() {
		return nil, &backend.NotEmptyError{Where: ws.Describe(), People: len(cur.People), Blocks: len(cur.Searches) + len(cur.Profiles)}
	}
	if _, err := os.Stat(store.JournalPath()); err == nil {
		if err := store.Commit(cur); err != nil {
			return nil, err
		}
	}
	ps, err := ws.preparePush(src)
	if err != nil {
		return nil, err
	}
	s := ps.Header
	err = ps.People(func(b []*state.Person) error {
		for _, p := range b {
			s.People[p.ID] = p
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.Serial, s.Journal = max(s.Serial, cur.Serial), nil
	if err := store.Save(s); err != nil {
		return nil, err
	}
	return &ps.Pushed, nil
}

// pushCacheKiB is SQLite's page cache (in KiB, as PRAGMA cache_size
// takes a negative size) while a push writes: the people's indexes are
// made at the end, and the tables are written in key order, so that a
// small cache suffices; 2 MB (SQLite's default) spills pages to the
// write-ahead log again and again.
const pushCacheKiB = 8 << 10

// dropIndexes drops, in tx, the secondary indexes of the people's tables
// (sqlstate.DropPeopleIndexes) with the push's page cache, and returns
// the function that makes them again and gives the cache back.
func dropIndexes(ctx context.Context, tx *sql.Tx) (rebuild func() error, err error) {
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(`PRAGMA cache_size = -%d`, pushCacheKiB)); err != nil {
		return nil, err
	}
	remake, err := sqlstate.DropPeopleIndexes(ctx, tx)
	if err != nil {
		return nil, err
	}
	return func() error {
		if err := remake(); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `PRAGMA cache_size = -2000`)
		return err
	}, nil
}
