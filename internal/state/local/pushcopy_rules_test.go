package local

import (
	"path/filepath"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// A push copied in SQLite (with --force) gives the workspace a serial
// past both its own and the source's, as a push through Go does: a
// serial that went back would let a plan saved before the push be
// applied over the state it replaced.
func TestPushCopyGoesPastTheTargetsSerial(t *testing.T) {
	dir := t.TempDir()
	s := backendtest.ManyPeople(t, 50)
	src := filepath.Join(dir, "src", "state.db")
	must(t, NewStore(src).Save(s))
	prior := backendtest.Fold(t, backendtest.Events())
	prior.Serial = s.Serial + 40
	ws := pushTarget(t, filepath.Join(dir, "to"), state.DefaultWorkspace, prior, nil)
	before, err := ws.Load()
	must(t, err)
	st, err := backend.OpenStream(Open(src))
	must(t, err)
	defer st.Close()
	if _, err := ws.PushStream(st, true); err != nil {
		t.Fatal(err)
	}
	if st.(*dbStream).passes != 0 {
		t.Fatal("the people passed through Go: the test no longer tests the copy")
	}
	got, err := ws.Load()
	must(t, err)
	if got.Serial <= before.Serial || got.Serial <= s.Serial {
		t.Fatalf("serial %d after the push; the workspace had %d, the source %d", got.Serial, before.Serial, s.Serial)
	}
}

// A push of a workspace's own database into it (--force) passes the
// people through Go (the file is not attached to itself: errNotCopied)
// and keeps the state.
func TestPushOfADatabaseIntoItself(t *testing.T) {
	dir := t.TempDir()
	s := backendtest.ManyPeople(t, backend.StreamBatch+10)
	ws := pushTarget(t, dir, state.DefaultWorkspace, s, nil)
	st, err := backend.OpenStream(Open(ws.Store.path))
	must(t, err)
	defer st.Close()
	if _, err := ws.PushStream(st, true); err != nil {
		t.Fatal(err)
	}
	if st.(*dbStream).passes == 0 {
		t.Fatal("the database was copied into itself in SQLite")
	}
	got, err := ws.Load()
	must(t, err)
	if !backendtest.SameCanon(t, got, s) {
		t.Fatalf("the workspace pushed into itself holds %d people, want the state it held (%d)", len(got.People), len(s.People))
	}
}
