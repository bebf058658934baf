package local

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"

	sqlite "modernc.org/sqlite"

	"github.com/leadsync/leadsync/internal/safefile"
)

// copyToBackup, before a push replaces the state, copies the database,
// whole and consistent, to <path>.backup, so that what is replaced is
// kept until the next erasure removes it. The copy is page by page
// (SQLite's online backup, from one snapshot): VACUUM INTO, which builds
// each table and index again, took 3.5 s of CPU at 3,000,000 people
// (docs/performance.md). Deleted content is not in the pages copied: it
// was overwritten (secure_delete).
func (d *dbStore) copyToBackup() error {
	return d.withIdle(d.backUp)
}

// backUp copies db to d's backup file (copyToBackup).
func (d *dbStore) backUp(db *sql.DB) error {
	backup := d.path + ".backup"
	tmp := backup + ".tmp"
	removeDB(tmp)
	// Made empty and private first: the copy fills an empty file.
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return &safefile.WriteError{Path: backup, Err: err}
	}
	f.Close()
	if err := copyPages(db, tmp); err != nil {
		removeDB(tmp)
		return d.wrap("keeping a backup", err)
	}
	if err := os.Rename(tmp, backup); err != nil {
		removeDB(tmp)
		return &safefile.WriteError{Path: backup, Err: err}
	}
	return nil
}

// copyPages copies the database of db into the empty file at path, page
// by page.
func copyPages(db *sql.DB, path string) error { return pageCopy(db, path, false) }

// pageCopy copies the database of db into the file at path page by page
// (SQLite's online backup), or, restore, the database at path into db's,
// in one transaction.
func pageCopy(db *sql.DB, path string, restore bool) error {
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error {
		c, ok := dc.(interface {
			NewBackup(string) (*sqlite.Backup, error)
			NewRestore(string) (*sqlite.Backup, error)
		})
		if !ok {
			return fmt.Errorf("the database driver cannot copy a database (%T)", dc)
		}
		open := c.NewBackup
		if restore {
			open = c.NewRestore
		}
		b, err := open(path)
		if err != nil {
			return err
		}
		for more := true; more && err == nil; {
			more, err = b.Step(-1)
		}
		return errors.Join(err, b.Finish())
	})
}
