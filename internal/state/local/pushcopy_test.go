package local

import (
	"bytes"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
	"github.com/leadsync/leadsync/internal/state/statefile"
	"github.com/leadsync/leadsync/internal/testenv"
)

// pushTarget is a working copy in dir to push into: its workspace ws
// (made when not the default one), holding prior when not nil, with an
// erasure record that names erased when not nil.
func pushTarget(t *testing.T, dir, ws string, prior *state.State, erased *state.Person) *Workspace {
	t.Helper()
	set := NewWorkspaces(filepath.Join(dir, ".leadsync", "state.db"), nil)
	if ws != state.DefaultWorkspace {
		must(t, set.CreateWorkspace(ws))
	}
	w, err := set.Open(ws)
	must(t, err)
	if prior != nil {
		must(t, w.Push(prior, false))
	}
	if erased != nil {
		must(t, w.RecordErasures([]*state.Suppression{{Keys: state.PersonKeys(erased), At: backendtest.At(30)}}))
	}
	return w
}

// pull is b's state as state pull writes it.
func pull(t *testing.T, b backend.Backend) string {
	t.Helper()
	st, err := backend.OpenStream(b)
	must(t, err)
	defer st.Close()
	var buf bytes.Buffer
	must(t, statefile.EncodeStream(&buf, st.Header(), st.People))
	return buf.String()
}

// execSQL runs statements on the database at path, its foreign keys off.
func execSQL(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?_pragma=foreign_keys(0)")
	must(t, err)
	defer db.Close()
	for _, q := range stmts {
		res, err := db.Exec(q)
		must(t, err)
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			t.Fatalf("%s changed no row (%v)", q, err)
		}
	}
}

// timesNotInLayout is a time of the database at path not kept in
// sqlstate.TimeLayout, "" when there is none.
func timesNotInLayout(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", path+"?mode=ro")
	must(t, err)
	defer db.Close()
	for table, cols := range timeColumns {
		for _, c := range cols {
			var v sql.NullString
			err := db.QueryRow(`SELECT ` + c + ` FROM ` + table + ` WHERE ` + c + ` NOT GLOB '` + layoutGlob("[0-9]") + `' LIMIT 1`).Scan(&v)
			if !errors.Is(err, sql.ErrNoRows) {
				must(t, err)
				return table + "." + c + " " + v.String
			}
		}
	}
	return ""
}

// A push from a SQLite database into another copies the people's rows in
// SQLite (no pass of the stream's people) and gives, pulled, byte for
// byte the state a push through Go gives: into a new database, into
// another workspace, over a state with --force, with an erasure record
// that leaves a person out. A source that cannot be copied as it is (a
// row that cannot be read, a time not in the form leadsync writes) is
// pushed through Go, and a broken one refused; nothing is written then.
// A found_by whose numbers are out of order is copied: it is read in
// order.
func TestPushCopiesInSQLite(t *testing.T) {
	s := backendtest.ManyPeople(t, backend.StreamBatch+321)
	gone := s.People["m000007"]
	if gone == nil || gone.Enrichment == nil {
		t.Fatal("the fixture has no enriched person m000007")
	}
	// The state saved once, copied for each case: ten saves of 5,321
	// people were a third of the test's CPU.
	saved := filepath.Join(t.TempDir(), "saved")
	must(t, NewStore(filepath.Join(saved, "state.db")).Save(s))
	for _, c := range []struct {
		name     string
		ws       string
		prior    *state.State
		erased   *state.Person
		change   []string // statements run on the source
		through  bool     // the people pass through Go
		wantErr  string
		wantGone bool
	}{
		{name: "new database", ws: state.DefaultWorkspace},
		{name: "another workspace", ws: "team"},
		{name: "force over a state", ws: state.DefaultWorkspace, prior: backendtest.Fold(t, backendtest.Events())},
		{name: "erasure record", ws: state.DefaultWorkspace, erased: gone, wantGone: true},
		{name: "found_by out of order", ws: state.DefaultWorkspace, change: []string{
			`UPDATE people SET found_by = (SELECT json_group_array(n) FROM (SELECT n FROM addresses WHERE address IN ('search.many["0"]x', 'search.many["0"]') ORDER BY n DESC)) WHERE id = 'm000005'`}},
		{name: "a person's time in another form", ws: state.DefaultWorkspace, through: true, change: []string{
			`UPDATE people SET last_seen = '2026-01-02T08:30:00.5+05:00' WHERE id = 'm000011'`}},
		{name: "an enrichment's time in another form", ws: state.DefaultWorkspace, through: true, change: []string{
			`UPDATE enrichments SET enriched_at = '2026-01-02T03:30:00Z' WHERE person_id = 'm000007'`}},
		{name: "a change's time in another form", ws: state.DefaultWorkspace, through: true, change: []string{
			`UPDATE person_history SET at = substr(at, 1, 19) || '+01:00' WHERE rowid = (SELECT min(rowid) FROM person_history)`}},
		{name: "a row that cannot be read", ws: state.DefaultWorkspace, through: true, wantErr: "m000010", change: []string{
			`UPDATE people SET first_seen = 'yesterday' WHERE id = 'm000010'`}},
		{name: "a person missing", ws: state.DefaultWorkspace, wantErr: "not a valid leadsync state", change: []string{
			`DELETE FROM people WHERE id = 'm000001'`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			src := filepath.Join(dir, "src", "state.db")
			copyFiles(t, saved, filepath.Dir(src))
			execSQL(t, src, c.change...)
			push := func(target string, wrap bool) (*Workspace, *dbStream, error) {
				ws := pushTarget(t, filepath.Join(dir, target), c.ws, c.prior, c.erased)
				st, err := backend.OpenStream(Open(src))
				must(t, err)
				defer st.Close()
				ds, ok := st.(*dbStream)
				if !ok {
					t.Fatalf("the source is read as %T", st)
				}
				if wrap { // not a *dbStream: the people pass through Go
					st = struct{ backend.Stream }{st}
				}
				_, err = ws.PushStream(st, c.prior != nil)
				return ws, ds, err
			}
			ws, ds, err := push("copied", false)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("push: %v; want an error naming %q", err, c.wantErr)
				}
				got, err := ws.Load()
				must(t, err)
				if !got.IsEmpty() || got.Serial != 0 {
					t.Fatalf("the failed push changed the workspace: serial %d, %d people", got.Serial, len(got.People))
				}
				return
			}
			must(t, err)
			if through := ds.passes > 0; through != c.through {
				t.Fatalf("the stream's people passed %d times; want them to pass through Go: %v", ds.passes, c.through)
			}
			other, _, err := push("through Go", true)
			must(t, err)
			if bad := timesNotInLayout(t, ws.db.path); bad != "" {
				t.Fatalf("the push kept the time %s as the source wrote it", bad)
			}
			got, want := pull(t, ws), pull(t, other)
			if got != want {
				t.Fatalf("the state copied in SQLite, pulled, differs from the one pushed through Go:\n%.2000s\nwant\n%.2000s", got, want)
			}
			loaded, err := ws.Load()
			must(t, err)
			if (loaded.People[gone.ID] == nil) != c.wantGone || len(loaded.People) < len(s.People)-1 {
				t.Fatalf("the workspace holds %d people (person %s: %v); the state has %d", len(loaded.People), gone.ID, loaded.People[gone.ID] != nil, len(s.People))
			}
		})
	}
}

// A copy in SQLite numbers each person's history from 0, as a push
// through Go writes it, whatever numbers the source kept.
func TestPushCopyNumbersTheHistory(t *testing.T) {
	dir := t.TempDir()
	s := backendtest.ManyPeople(t, 500)
	src := filepath.Join(dir, "src", "state.db")
	must(t, NewStore(src).Save(s))
	execSQL(t, src, `UPDATE person_history SET n = -n - 1`, `UPDATE person_history SET n = -n * 10 + 3`)
	ws := pushTarget(t, filepath.Join(dir, "to"), state.DefaultWorkspace, nil, nil)
	st, err := backend.OpenStream(Open(src))
	must(t, err)
	defer st.Close()
	_, err = ws.PushStream(st, false)
	must(t, err)
	if st.(*dbStream).passes != 0 {
		t.Fatal("the people passed through Go")
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, "to", ".leadsync", "state.db")+"?mode=ro")
	must(t, err)
	defer db.Close()
	var rows, bad int
	must(t, db.QueryRow(`SELECT count(*), count(*) FILTER (WHERE n <> (SELECT count(*) FROM person_history o
		WHERE o.person_id = h.person_id AND o.n < h.n)) FROM person_history h`).Scan(&rows, &bad))
	if rows == 0 || bad != 0 {
		t.Fatalf("%d history rows, %d not numbered from 0 in order", rows, bad)
	}
}

// A push into a workspace without a database builds it beside and links
// it into place once complete: a push that fails half-way leaves no
// database and no file beside; one a killed push left is removed by the
// next push; the database pushed is the state, in the write-ahead log's
// mode once opened.
func TestPushIntoANewDatabase(t *testing.T) {
	dir := t.TempDir()
	s := backendtest.ManyPeople(t, backend.StreamBatch+10)
	ws := pushTarget(t, dir, state.DefaultWorkspace, nil, nil)
	sdir := filepath.Join(dir, ".leadsync")
	if _, err := ws.PushStream(halfWay{backend.MemoryStream(s, "a failing state")}, false); err == nil {
		t.Fatal("the failing push succeeded")
	}
	if got := files(t, sdir); !slices.Equal(got, []string{".gitignore"}) {
		t.Fatalf("after a failed push into a new database the folder holds %q", got)
	}
	abandoned := filepath.Join(sdir, pushingPrefix(ws.Store.path)+"killed00")
	must(t, os.WriteFile(abandoned, []byte("half a database"), 0o600))
	old := time.Now().Add(-2 * time.Minute)
	must(t, os.Chtimes(abandoned, old, old))
	if _, err := ws.PushStream(backend.MemoryStream(s, "the state"), false); err != nil {
		t.Fatal(err)
	}
	if got := files(t, sdir); !slices.Equal(got, []string{".gitignore", "state.db"}) {
		t.Fatalf("after the push the folder holds %q", got)
	}
	got, err := ws.Load()
	must(t, err)
	if !backendtest.SameCanon(t, got, s) {
		t.Fatal("the state pushed into a new database differs")
	}
	db, err := sql.Open("sqlite", ws.Store.path)
	must(t, err)
	defer db.Close()
	var mode string
	must(t, db.QueryRow(`PRAGMA journal_mode`).Scan(&mode))
	if mode != "wal" {
		t.Fatalf("the database pushed is in journal mode %q", mode)
	}
}

// The write-ahead log of a database removed by hand is not read into the
// database a push makes in its place.
func TestPushIntoANewDatabaseIgnoresAStaleLog(t *testing.T) {
	dir := t.TempDir()
	ws := pushTarget(t, dir, state.DefaultWorkspace, nil, nil)
	path := ws.Store.path
	must(t, ws.Push(backendtest.Fold(t, backendtest.Events()), false))
	// A log left by a database with other rows: copied while a
	// connection holds it, before SQLite moves it into the database.
	db, err := sql.Open("sqlite", path+"?_pragma=journal_mode(WAL)")
	must(t, err)
	db.SetMaxOpenConns(1)
	_, err = db.Exec(`DELETE FROM people`)
	must(t, err)
	log, err := os.ReadFile(path + "-wal")
	must(t, err)
	must(t, db.Close())
	removeDB(path)
	must(t, os.WriteFile(path+"-wal", log, 0o600))
	s := backendtest.ManyPeople(t, 300)
	must(t, ws.Push(s, false))
	got, err := ws.Load()
	must(t, err)
	if !backendtest.SameCanon(t, got, s) {
		t.Fatalf("the state pushed over a stale log holds %d people, want %d", len(got.People), len(s.People))
	}
}

// A push on a full disk, copied in SQLite, says the disk is full and
// names the state file (not the file it builds beside), and leaves the
// workspace as it was: no database and no file beside when it had none,
// its state when it had one (--force).
func TestPushOnAFullDisk(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src", "state.db")
	must(t, NewStore(src).Save(backendtest.ManyPeople(t, 15000))) // more than the 2 MB disk holds
	sdir := filepath.Join(dir, "to", ".leadsync")
	testenv.MountTmpfs(t, sdir, 2<<20)
	ws := pushTarget(t, filepath.Join(dir, "to"), state.DefaultWorkspace, nil, nil)
	small := backendtest.Fold(t, backendtest.Events())
	for _, prior := range []*state.State{nil, small} {
		if prior != nil {
			must(t, ws.Push(prior, false))
		}
		st, err := backend.OpenStream(Open(src))
		must(t, err)
		_, err = ws.PushStream(st, prior != nil)
		st.Close()
		var we *safefile.WriteError
		if !errors.As(err, &we) || !strings.Contains(err.Error(), "disk is full") || we.Path != ws.Store.path {
			t.Fatalf("push on a full disk (over a state: %v): %v; want a disk-full error naming %s", prior != nil, err, ws.Store.path)
		}
		if prior == nil {
			if got := files(t, sdir); !slices.Equal(got, []string{".gitignore"}) {
				t.Fatalf("after a push on a full disk the folder holds %q", got)
			}
			continue
		}
		got, err := ws.Load()
		must(t, err)
		if !backendtest.SameCanon(t, got, prior) {
			t.Fatal("the push on a full disk changed the state")
		}
	}
}

// copyFiles copies the files of folder from into folder to, made.
func copyFiles(t *testing.T, from, to string) {
	t.Helper()
	must(t, os.MkdirAll(to, 0o700))
	entries, err := os.ReadDir(from)
	must(t, err)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(to, e.Name()), b, 0o600))
	}
}
