package local

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// TestMigrateFromJSON: the JSON state file of earlier versions, with the
// journal an interrupted apply left, becomes the database on first use:
// the database holds the state with the journal's calls, the file and its
// journal are kept as backups named in one note, and the next load says
// nothing more.
func TestMigrateFromJSON(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".leadsync")
	old := NewStore(filepath.Join(dir, "state.json"))
	evs := demoEvents()
	s, err := old.Load()
	must(t, err)
	must(t, old.Save(s))
	j, err := old.OpenJournal(s)
	must(t, err)
	for i := range evs {
		must(t, j.Record(&evs[i]))
	}
	// Killed here: the state file and a journal of every call.
	want, err := NewStore(old.Path()).Load()
	must(t, err)

	var notes []string
	store := NewStore(filepath.Join(dir, "state.db"))
	store.Notify = func(n string) { notes = append(notes, n) }
	got, err := store.Load()
	must(t, err)
	if canon := backendtest.Canon; canon(t, got) != canon(t, want) {
		t.Errorf("the database holds another state than the file:\n%s\nwant\n%s", canon(t, got), canon(t, want))
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "state.json is now the SQLite database .leadsync/state.db; the file is kept as .leadsync/state.json.backup") {
		t.Errorf("notes %q, want one naming the backup", notes)
	}
	for _, gone := range []string{"state.json", "state.json.journal"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", gone, err)
		}
	}
	for _, kept := range []string{"state.json.backup", "state.json.journal.backup"} {
		if _, err := os.Stat(filepath.Join(dir, kept)); err != nil {
			t.Errorf("%s was not kept: %v", kept, err)
		}
	}
	notes = nil
	again, err := store.Load()
	must(t, err)
	if len(notes) != 0 || backendtest.Canon(t, again) != backendtest.Canon(t, want) {
		t.Errorf("the second load said %q or read another state", notes)
	}
	// An erasure removes the copies: they hold the people erased.
	must(t, store.RemoveBackup())
	if _, err := os.Stat(filepath.Join(dir, "state.json.backup")); !os.IsNotExist(err) {
		t.Errorf("the JSON backup outlived RemoveBackup (%v)", err)
	}
}

// TestSchemaMadeOnceAtOnce: commands that open a new database at the same
// moment make its tables once, and none fails.
func TestSchemaMadeOnceAtOnce(t *testing.T) {
	for round := range 20 {
		path := filepath.Join(t.TempDir(), "state.db")
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d := newDBStore(path, NewStore(path).now)
				d.mu.Lock()
				_, errs[i] = d.handle(true)
				d.closeIdle()
				d.mu.Unlock()
			}()
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("round %d, opener %d: %v", round, i, err)
			}
		}
	}
}
