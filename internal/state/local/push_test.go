package local

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// countingStream counts the batches of its People passes.
type countingStream struct {
	backend.Stream
	batches int
}

func (c *countingStream) People(fn func([]*state.Person) error) error {
	return c.Stream.People(func(b []*state.Person) error {
		c.batches++
		return fn(b)
	})
}

// A state database is pushed a batch of people at a time, read from one
// snapshot, and arrives identical in a database and in a JSON state file.
func TestPushStreamsTheDatabase(t *testing.T) {
	dir := t.TempDir()
	s := backendtest.ManyPeople(t, 2*backend.StreamBatch+321)
	src := filepath.Join(dir, "src", "state.db")
	must(t, NewStore(src).Save(s))
	want := backendtest.Canon(t, s)
	for _, file := range []string{"state.db", "state.json"} {
		t.Run(file, func(t *testing.T) {
			st, err := backend.OpenStream(Open(src))
			must(t, err)
			defer st.Close()
			if _, ok := st.(*dbStream); !ok {
				t.Fatalf("the database is read whole (%T)", st)
			}
			counted := &countingStream{Stream: st}
			ws, err := NewWorkspaces(filepath.Join(dir, file, ".leadsync", file), nil).Open(state.DefaultWorkspace)
			must(t, err)
			pushed, err := ws.PushStream(counted, false)
			must(t, err)
			if counted.batches < 3 || pushed.People != len(s.People) {
				t.Fatalf("pushed %d people in %d batches; the state has %d", pushed.People, counted.batches, len(s.People))
			}
			got, err := ws.Load()
			must(t, err)
			if backendtest.Canon(t, got) != want {
				t.Fatalf("the state pushed from the database differs")
			}
		})
	}
}

// fileStreamPeople is the size of the state files pushed a piece of the
// file at a time: larger than statefile's minStream, in three pieces or
// more (the pieces are of the file, not backend.StreamBatch's).
const fileStreamPeople = 25000

// A large state file is pushed a piece of the file at a time and arrives
// identical; one whose people are not laid out as leadsync writes them is
// read whole, as every command reads it, and arrives identical too.
func TestPushStreamsTheStateFile(t *testing.T) {
	dir := t.TempDir()
	s := backendtest.ManyPeople(t, fileStreamPeople)
	src := filepath.Join(dir, "src", "state.json")
	must(t, NewStore(src).Save(s))
	st, err := backend.OpenStream(Open(src))
	must(t, err)
	defer st.Close()
	if _, ok := st.(*fileStream); !ok {
		t.Fatalf("the state file is read whole (%T): make the fixture larger than statefile's minStream", st)
	}
	counted := &countingStream{Stream: st}
	ws, err := NewWorkspaces(filepath.Join(dir, "to", ".leadsync", "state.db"), nil).Open(state.DefaultWorkspace)
	must(t, err)
	pushed, err := ws.PushStream(counted, false)
	must(t, err)
	if counted.batches < 3 || pushed.People != len(s.People) {
		t.Fatalf("pushed %d people in %d batches; the state has %d", pushed.People, counted.batches, len(s.People))
	}
	got, err := ws.Load()
	must(t, err)
	if !backendtest.SameCanon(t, got, s) { // s itself is not pushed: its file is
		t.Fatalf("the state pushed from the state file differs")
	}
}

// A state file whose people turn out, half-way, not to be laid out as
// leadsync writes them (here a null person, which Check refuses) stops the
// push with backend.ErrReadWhole and nothing written: state push then
// reads the file whole, whose reader says what is wrong.
func TestPushOfAStateFileReadWhole(t *testing.T) {
	dir := t.TempDir()
	s := backendtest.ManyPeople(t, fileStreamPeople)
	src := filepath.Join(dir, "src", "state.json")
	must(t, NewStore(src).Save(s))
	b, err := os.ReadFile(src)
	must(t, err)
	line := regexp.MustCompile(`(?m)^    "m020000": .*,$`)
	if len(line.FindAll(b, -1)) != 1 {
		t.Fatal("the fixture has no line of person m020000")
	}
	must(t, os.WriteFile(src, line.ReplaceAll(b, []byte(`    "m020000": null,`)), 0o600))
	st, err := backend.OpenStream(Open(src))
	must(t, err)
	defer st.Close()
	ws, err := NewWorkspaces(filepath.Join(dir, "to", ".leadsync", "state.db"), nil).Open(state.DefaultWorkspace)
	must(t, err)
	counted := &countingStream{Stream: st}
	if _, err := ws.PushStream(counted, false); !errors.Is(err, backend.ErrReadWhole) {
		t.Fatalf("push of a state file with a null person: %v", err)
	}
	if counted.batches == 0 {
		t.Fatal("no piece passed before the null person: the test does not test a push stopped half-way")
	}
	got, err := ws.Load()
	must(t, err)
	if !got.IsEmpty() || got.Serial != 0 {
		t.Fatalf("the workspace after the stopped push: serial %d, %d people", got.Serial, len(got.People))
	}
	if _, err := Open(src).Load(); err == nil || !strings.Contains(err.Error(), "m020000") {
		t.Fatalf("the file read whole: %v", err)
	}
}

// indexesOf lists the indexes of the database at path as sqlite_master
// has them: name, table and definition.
func indexesOf(t *testing.T, path string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?mode=ro")
	must(t, err)
	defer db.Close()
	rows, err := db.Query(`SELECT name || ' ' || tbl_name || ' ' || COALESCE(sql, '') FROM sqlite_master WHERE type = 'index' ORDER BY name`)
	must(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		must(t, rows.Scan(&s))
		out = append(out, s)
	}
	must(t, rows.Err())
	return out
}

// halfWay fails its People pass after one batch.
type halfWay struct{ backend.Stream }

func (h halfWay) People(fn func([]*state.Person) error) error {
	n := 0
	return h.Stream.People(func(b []*state.Person) error {
		if n++; n > 1 {
			return errors.New("the source went away")
		}
		return fn(b)
	})
}

// A push drops the people's indexes and makes them again in its
// transaction: after a push, a push --force and a push that fails
// half-way, the database has the indexes of a fresh one, word for word.
func TestPushKeepsTheIndexes(t *testing.T) {
	dir := t.TempDir()
	fresh := filepath.Join(dir, "fresh", "state.db")
	must(t, NewStore(fresh).Save(state.New()))
	want := indexesOf(t, fresh)
	if len(want) < 10 {
		t.Fatalf("a fresh database has the indexes %q", want)
	}
	path := filepath.Join(dir, "to", ".leadsync", "state.db")
	ws, err := NewWorkspaces(path, nil).Open(state.DefaultWorkspace)
	must(t, err)
	s := backendtest.ManyPeople(t, backend.StreamBatch+10)
	for i, push := range []struct {
		src   backend.Stream
		force bool
	}{
		{backend.MemoryStream(s, "the state"), false},
		{backend.MemoryStream(s, "the state again"), true},
		{halfWay{backend.MemoryStream(s, "a failing state")}, true},
	} {
		_, err := ws.PushStream(push.src, push.force)
		if (err != nil) != (i == 2) {
			t.Fatalf("push %d: %v", i, err)
		}
		if got := indexesOf(t, path); !slices.Equal(got, want) {
			t.Fatalf("indexes after push %d:\n%s\nwant those of a fresh database:\n%s", i, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// A push writes with the foreign keys off and checks them once at the
// end: a row that refers to a person who does not exist is refused.
func TestCheckKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	must(t, NewStore(path).Save(backendtest.Fold(t, backendtest.Events())))
	db, err := sql.Open("sqlite", path+"?_pragma=foreign_keys(0)")
	must(t, err)
	defer db.Close()
	tx, err := db.Begin()
	must(t, err)
	defer tx.Rollback()
	ctx := context.Background()
	must(t, checkKeys(ctx, tx))
	_, err = tx.Exec(`INSERT INTO enrichments (workspace, person_id, enriched_at, by_n) VALUES ('default', 'nobody', '2026-01-01', 1)`)
	must(t, err)
	if err := checkKeys(ctx, tx); err == nil || !strings.Contains(err.Error(), "a row of enrichments refers to a row of people") {
		t.Fatalf("checkKeys with an enrichment of nobody: %v", err)
	}
}
