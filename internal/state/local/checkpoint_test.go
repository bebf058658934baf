package local

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// TestStoppedCheckpointWritesNothing: the write of a move folded into a
// partial state (the recorder's Checkpoint) stopped by the run's context
// writes nothing, the rows as before; written again, the store renames
// the moved search in its people's rows, and the state committed is the
// move folded into the state read whole.
func TestStoppedCheckpointWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".leadsync", "state.db")
	store := NewStore(path)
	defer store.Close()
	whole := backendtest.Fold(t, demoEvents())
	must(t, store.Save(whole))
	from := slices.Sorted(func(yield func(string) bool) {
		for a := range whole.Searches {
			if !yield(a) {
				return
			}
		}
	})[0]
	ev := state.Event{At: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), Kind: state.EventMove, Address: state.MovesAddress,
		Move: &state.MoveEvent{Moves: []state.Move{{From: from, To: "search.moved"}}}}
	b := store.AsBackend()
	base, err := backend.OpenBase(b)
	must(t, err)
	s, err := base.Writable()
	must(t, err)
	rec, err := b.OpenJournal(s)
	must(t, err)
	must(t, rec.Append(&ev))
	must(t, s.Fold(ev))
	cp := rec.(interface{ Checkpoint(context.Context) error })
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if err := cp.Checkpoint(stopped); !errors.Is(err, context.Canceled) {
		t.Fatalf("checkpoint after the interrupt: %v, want it stopped", err)
	}
	db, err := sql.Open("sqlite", path+sqliteDSN)
	must(t, err)
	defer db.Close()
	named := func(addr string) (n int) {
		must(t, db.QueryRow(`SELECT count(*) FROM people, json_each(people.found_by) WHERE value = ?`, addr).Scan(&n))
		return n
	}
	if n := named(from); n != len(whole.Searches[from].LeadIDs) || n == 0 {
		t.Fatalf("after the stopped write, %d people found by %s, want %d: written in part", n, from, len(whole.Searches[from].LeadIDs))
	}
	must(t, cp.Checkpoint(context.Background()))
	if named(from) != 0 || named("search.moved") != len(whole.Searches[from].LeadIDs) {
		t.Errorf("after the write, %d people found by %s and %d by search.moved", named(from), from, named("search.moved"))
	}
	must(t, rec.Close())
	must(t, base.Close())
	must(t, b.Commit(s))
	must(t, whole.Fold(ev))
	got, err := b.Load()
	must(t, err)
	foundBy := func(s *state.State) map[string][]string {
		out := map[string][]string{}
		for id, p := range s.People {
			out[id] = p.FoundBy
		}
		return out
	}
	if d := cmp.Diff(foundBy(whole), foundBy(got)); d != "" || got.Searches["search.moved"] == nil || got.Searches[from] != nil {
		t.Errorf("the state committed: the search not moved, or the people (-whole +partial):\n%s", d)
	}
}

// TestStoppedCloseLeavesTheMoveRecorded: an apply's recording closed
// after the second interrupt (CloseContext, the context done) writes
// nothing; the move stays recorded, and the next load folds it in.
func TestStoppedCloseLeavesTheMoveRecorded(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".leadsync", "state.db")
	store := NewStore(path)
	defer store.Close()
	whole := backendtest.Fold(t, demoEvents())
	must(t, store.Save(whole))
	var from string
	for a := range whole.Searches {
		from = a
	}
	ev := state.Event{At: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), Kind: state.EventMove, Address: state.MovesAddress,
		Move: &state.MoveEvent{Moves: []state.Move{{From: from, To: "search.moved"}}}}
	b := store.AsBackend()
	base, err := backend.OpenBase(b)
	must(t, err)
	s, err := base.Writable()
	must(t, err)
	rec, err := b.OpenJournal(s)
	must(t, err)
	must(t, rec.Append(&ev))
	must(t, s.Fold(ev))
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if err := rec.(interface{ CloseContext(context.Context) error }).CloseContext(stopped); !errors.Is(err, context.Canceled) {
		t.Fatalf("close after the interrupt: %v, want it stopped", err)
	}
	must(t, base.Close())
	must(t, whole.Fold(ev))
	got, err := NewStore(path).AsBackend().Load()
	must(t, err)
	if got.Searches["search.moved"] == nil || got.Searches[from] != nil {
		t.Fatalf("the next load did not fold the recorded move")
	}
	for id, p := range whole.People {
		if d := cmp.Diff(p.FoundBy, got.People[id].FoundBy); d != "" {
			t.Errorf("person %s (-whole +loaded):\n%s", id, d)
		}
	}
}
