package local

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// TestWritableEndsItsSnapshot: the partial state of a stored Base
// (Writable, under the workspace's lock in every command) reads no more
// from the Base's snapshot, so that the write-ahead log can be emptied
// while an apply commits call after call; it reads the people it asks
// for from the state as committed.
func TestWritableEndsItsSnapshot(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".leadsync", "state.db")
	store := NewStore(path)
	defer store.Close()
	must(t, store.Save(backendtest.Fold(t, demoEvents())))
	base, err := store.OpenBase()
	must(t, err)
	defer base.Close()
	if !base.Stored() {
		t.Fatal("the database's Base is not stored")
	}
	s, err := base.Writable()
	must(t, err)
	db, err := sql.Open("sqlite", path+sqliteDSN)
	must(t, err)
	defer db.Close()
	// A commit after the Base was opened (as an apply's first call).
	_, err = db.Exec(`UPDATE people SET title = 'Changed' WHERE id = 'n1'`)
	must(t, err)
	var busy, logPages, moved int
	must(t, db.QueryRow(`PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logPages, &moved))
	if busy != 0 {
		t.Errorf("the write-ahead log could not be emptied (%d pages, %d moved): the Base's read transaction is still open", logPages, moved)
	}
	must(t, s.ReadPeople([]string{"n1"}))
	if p := s.People["n1"]; p == nil || p.Lead.Title != "Changed" {
		t.Errorf("the partial state read n1 as %+v, not as committed", p)
	}
}
