//go:build unix

package sqlstate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// killRemovalEnv names, in the child process of
// TestKillDuringARemovalWithIndexesDropped, the database it removes from.
const killRemovalEnv = "LEADSYNC_TEST_KILL_REMOVAL"

// TestKillDuringARemovalWithIndexesDropped kills (SIGKILL) a process in
// the middle of a write removing people in pages with the people's
// indexes dropped, after its cache was made small enough to spill the
// uncommitted pages to the write-ahead log. The database opened again
// holds every person, every index as the schema makes it, and passes
// integrity_check: the drop, the deletes and the rebuild are one
// transaction.
func TestKillDuringARemovalWithIndexesDropped(t *testing.T) {
	if path := os.Getenv(killRemovalEnv); path != "" {
		removeUntilKilled(t, path)
		return
	}
	path := filepath.Join(t.TempDir(), "state.db")
	db := openKillDB(t, path)
	if _, err := db.Exec(SQLiteSchema); err != nil {
		t.Fatal(err)
	}
	indexes := removalIndexes(t, db)
	s, ch := killPeople(2_000)
	removalWrite(t, db, s, ch)
	db.Close()

	cmd := exec.Command(os.Args[0], "-test.run=^TestKillDuringARemovalWithIndexesDropped$")
	cmd.Env = append(os.Environ(), killRemovalEnv+"="+path)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed: %v\n%s", err, out)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("no uncommitted page reached the write-ahead log before the kill (%v): the test shows nothing", err)
	}

	db = openKillDB(t, path)
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM people`).Scan(&n); err != nil || n != len(s.People) {
		t.Errorf("%d people after the kill (%v), want %d", n, err, len(s.People))
	}
	if got := removalIndexes(t, db); got != indexes {
		t.Errorf("the indexes after the kill are\n%s\nwant\n%s", got, indexes)
	}
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity_check: %q, %v", check, err)
	}
}

// removeUntilKilled is the child: it removes all the people of path in
// pages of 100 with the indexes dropped, shrinks the cache after the
// first page and kills itself after the fifth.
func removeUntilKilled(t *testing.T, path string) {
	removalPageSize, removalRebuild = 100, bulkRemoval
	pages := 0
	removalPageDone = func(ctx context.Context, tx *sql.Tx) {
		pages++
		if pages == 1 {
			if _, err := tx.ExecContext(ctx, `PRAGMA cache_size = 10`); err != nil {
				t.Fatal(err)
			}
		}
		if pages == 5 {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
	}
	db := openKillDB(t, path)
	s, _ := killPeople(2_000)
	ch := &state.Changes{People: map[string]struct{}{}}
	for id := range s.People {
		ch.People[id] = struct{}{}
	}
	s.People = map[string]*state.Person{}
	removalWrite(t, db, s, ch)
	t.Fatal("the removal ended without the kill")
}

// openKillDB opens the database file at path as the local backend does
// (WAL, synchronous FULL).
func openKillDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	return db
}

// killPeople is a state of n people with history, every second one
// enriched, and the changes that write them all.
func killPeople(n int) (*state.State, *state.Changes) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	s := &state.State{Lineage: "l", People: map[string]*state.Person{}}
	ch := &state.Changes{People: map[string]struct{}{}, History: map[string]int{}}
	for i := range n {
		id := fmt.Sprintf("p%05d", i)
		p := &state.Person{ID: id, LastSeen: at, Lead: person.Lead{Title: fmt.Sprintf("Engineer %d of a long title", i)},
			History: []state.Drift{{Field: state.DriftTitle, After: "CTO", At: at, By: "search.s", Call: "search"}}}
		if i%2 == 0 {
			p.Enrichment = &state.Enrichment{By: "enrich.e", EnrichedAt: at}
		}
		s.People[id], ch.People[id], ch.History[id] = p, struct{}{}, -1
	}
	return s, ch
}
