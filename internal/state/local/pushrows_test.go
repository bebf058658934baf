package local

import (
	"path/filepath"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// A push writes its rows many to a statement (sqlstate's bulk): a person
// whose history alone fills more than one statement, beside people whose
// rows share one, arrives identical.
func TestPushOfManyRowsToAStatement(t *testing.T) {
	s := backendtest.ManyPeople(t, 100)
	var long *state.Person
	for _, p := range s.People {
		if len(p.History) > 0 && (long == nil || p.ID < long.ID) {
			long = p
		}
	}
	if long == nil {
		t.Fatal("the fixture holds no history")
	}
	for len(long.History) < 70 {
		long.History = append(long.History, long.History[0])
	}
	want := backendtest.Canon(t, s)
	ws, err := NewWorkspaces(filepath.Join(t.TempDir(), ".leadsync", "state.db"), nil).Open(state.DefaultWorkspace)
	must(t, err)
	if _, err := ws.PushStream(backend.MemoryStream(s, "the state"), false); err != nil {
		t.Fatal(err)
	}
	got, err := ws.Load()
	must(t, err)
	if n := len(got.People[long.ID].History); n != 70 || backendtest.Canon(t, got) != want {
		t.Fatalf("the state pushed differs (%d changes of %s read back, 70 pushed)", n, long.ID)
	}
}
