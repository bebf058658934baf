package local

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
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
	if len(notes) != 0 || !backendtest.SameCanon(t, again, want) {
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

// TestDBKeepsEveryText: a person's texts come back from the database as
// they went in, whatever they hold (quotes, backslashes, control
// characters, non-Latin letters: SQLite gives each person as one JSON
// array, sqlstate.SelectPeoplePacked).
func TestDBKeepsEveryText(t *testing.T) {
	odd := []string{`say "hi"`, `C:\dir\`, "line\nbreak\ttab\r\b\f/", "ctl\x01\x1f", "Zoë 😀 李", `\u00e9`, `{"a":[1]}`, "</script>", ""}
	var leads []person.Lead
	for i, text := range odd {
		l := lead(fmt.Sprintf("n%d", i), fmt.Sprintf("p%d", i), text)
		l.Title, l.Company, l.Location = text, text+text, strings.ToUpper(text)
		leads = append(leads, l)
	}
	want := backendtest.Fold(t, append(demoEvents(), searchEv(day(2), `search.odd`, 0, leads...)))
	store := NewStore(filepath.Join(t.TempDir(), ".leadsync", "state.db"))
	must(t, store.Save(want))
	got, err := store.Load()
	must(t, err)
	if canon := backendtest.Canon; canon(t, got) != canon(t, want) {
		t.Errorf("the database gave another state:\n%s\nwant\n%s", canon(t, got), canon(t, want))
	}
}

// TestMigrateSchema2: a database of schema version 2 gets the indexes of
// a partial state (enrichments_copied, person_history_by) the first time
// a command opens it, and the migrations after; its state is the same.
func TestMigrateSchema2(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".leadsync", "state.db")
	store := NewStore(path)
	s, err := store.Load()
	must(t, err)
	for _, e := range demoEvents() {
		must(t, s.Fold(e))
	}
	must(t, store.Save(s))
	want, err := store.Load()
	must(t, err)
	must(t, store.Close())
	toSchema3(t, path)
	db, err := sql.Open("sqlite", path+sqliteDSN)
	must(t, err)
	_, err = db.Exec(`DROP INDEX enrichments_copied; DROP INDEX person_history_by; UPDATE schema_version SET version = 2`)
	must(t, err)
	must(t, db.Close())

	again := NewStore(path)
	defer again.Close()
	base, err := again.OpenBase()
	must(t, err)
	_, err = base.Names()
	must(t, err)
	must(t, base.Close())
	db, err = sql.Open("sqlite", path+sqliteDSN)
	must(t, err)
	defer db.Close()
	var v, n int
	must(t, db.QueryRow(`SELECT version FROM schema_version`).Scan(&v))
	must(t, db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN ('enrichments_copied', 'person_history_by')`).Scan(&n))
	if v != sqlstate.SchemaVersion || n != 2 {
		t.Fatalf("after opening: schema version %d, %d of the 2 indexes; want version %d and both", v, n, sqlstate.SchemaVersion)
	}
	got, err := again.Load()
	must(t, err)
	if canon := backendtest.Canon; canon(t, got) != canon(t, want) {
		t.Errorf("the migrated database holds another state:\n%s\nwant\n%s", canon(t, got), canon(t, want))
	}
}
