package local

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// readingKind names the migrated copy a push reads an older source from,
// beside the source: .state.db.reading-PID-*.db (safefile.TempPattern).
// Only a copy whose process no longer runs is taken as a leftover.
const readingKind = "reading"

// openSource opens a push's source d as openStream does, from the store
// readable gives: a migrated copy is read whole when its calls of an
// interrupted apply wait, and removed when the stream is closed.
func (d *dbStore) openSource(what string) (backend.Stream, error) {
	r, done, err := d.readable()
	if err != nil {
		return nil, err
	}
	if r == d {
		return d.openStream(what)
	}
	defer func() {
		if done != nil {
			done()
		}
	}()
	st, err := r.openStream(what)
	if ds, ok := st.(*dbStream); ok {
		ds.done, done = done, nil
		return ds, nil
	}
	if err != nil {
		return nil, err
	}
	s, err := r.load()
	if err != nil {
		return nil, err
	}
	return backend.MemoryStream(s, what), nil
}

// readable is the store a push reads its source d from: d itself, or,
// when d's schema is older than this build's, a migrated copy of d in a
// temporary file of its folder, which done removes (nil for d). A source
// opened to be read is never migrated in place: a backup of an older
// leadsync stays readable by it.
func (d *dbStore) readable() (src *dbStore, done func(), err error) {
	v, err := d.schemaVersion()
	if err != nil || v == 0 || v >= sqlstate.SchemaVersion {
		return d, nil, err
	}
	dir := filepath.Dir(d.path)
	safefile.RemoveDeadTemps(d.path, readingKind)
	f, err := os.CreateTemp(dir, safefile.TempPattern(d.path, readingKind)+".db")
	if err != nil {
		return nil, nil, d.wrap("copying the state to migrate it", err)
	}
	tmp := f.Name()
	f.Close()
	if err := d.copyReadOnly(tmp); err != nil {
		removeDB(tmp)
		return nil, nil, d.wrap("copying the state to migrate it", err)
	}
	c := newDBStore(tmp, d.now)
	c.ws, c.shown = d.ws, d.path
	return c, func() { c.close(); removeDB(tmp) }, nil
}

// schemaVersion is the schema version of the database at d's path, read
// without writing; 0 when it has none (missing, empty, no state).
func (d *dbStore) schemaVersion() (int, error) {
	if _, err := os.Stat(d.path); err != nil {
		return 0, nil
	}
	db, err := sql.Open("sqlite", d.path+"?mode=ro")
	if err != nil {
		return 0, d.cannotRead(err)
	}
	defer db.Close()
	ctx := context.Background()
	var n, v int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'`).Scan(&n); err != nil || n == 0 {
		return 0, d.wrap("reading the schema", err)
	}
	if err := db.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&v); err != nil {
		return 0, d.wrap("reading the schema version", err)
	}
	return v, nil
}

// copyReadOnly copies the database at d's path, opened read-only, into
// the empty file at path, page by page.
func (d *dbStore) copyReadOnly(path string) error {
	db, err := sql.Open("sqlite", d.path+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	return copyPages(db, path)
}
