package local

import (
	"path/filepath"
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
