package local

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// movedRecording is a stored state whose partial state has a move of
// its first search to search.moved recorded and folded in, not written.
type movedRecording struct {
	path  string
	whole *state.State // the state before the move
	from  string
	ev    state.Event
	b     backend.Backend
	base  *state.Base
	s     *state.State
	rec   backend.Recorder
	db    *sql.DB
}

func newMovedRecording(t *testing.T) *movedRecording {
	whole := backendtest.Fold(t, demoEvents())
	return movedRecordingOf(t, whole, slices.Sorted(maps.Keys(whole.Searches))[0], "search.moved", nil)
}

// movedRecordingOf is the movedRecording of whole stored, its address
// from moved to to; before runs on the database before the move is
// recorded (nil: nothing).
func movedRecordingOf(t *testing.T, whole *state.State, from, to string, before func(*sql.DB)) *movedRecording {
	m := &movedRecording{path: filepath.Join(t.TempDir(), ".leadsync", "state.db"), whole: whole, from: from}
	store := NewStore(m.path)
	t.Cleanup(func() { store.Close() })
	must(t, store.Save(m.whole))
	m.ev = state.Event{At: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), Kind: state.EventMove, Address: state.MovesAddress,
		Move: &state.MoveEvent{Moves: []state.Move{{From: from, To: to}}}}
	var err error
	m.db, err = sql.Open("sqlite", m.path+sqliteDSN)
	must(t, err)
	t.Cleanup(func() { m.db.Close() })
	if before != nil {
		before(m.db)
	}
	m.b = store.AsBackend()
	m.base, err = backend.OpenBase(m.b)
	must(t, err)
	m.s, err = m.base.Writable()
	must(t, err)
	m.rec, err = m.b.OpenJournal(m.s)
	must(t, err)
	must(t, m.rec.Append(&m.ev))
	must(t, m.s.Fold(m.ev))
	return m
}

// named is how many people's rows name addr among their searches.
func (m *movedRecording) named(t *testing.T, addr string) (n int) {
	must(t, m.db.QueryRow(`SELECT count(*) FROM people_found_by, json_each(people_found_by.found_by) WHERE value = ?`, addr).Scan(&n))
	return n
}

// sameAsWhole fails t unless got is the move folded into the state read
// whole.
func (m *movedRecording) sameAsWhole(t *testing.T, got *state.State) {
	must(t, m.whole.Fold(m.ev))
	foundBy := func(s *state.State) map[string][]string {
		out := map[string][]string{}
		for id, p := range s.People {
			out[id] = p.FoundBy
		}
		return out
	}
	if d := cmp.Diff(foundBy(m.whole), foundBy(got)); d != "" || got.Searches["search.moved"] == nil || got.Searches[m.from] != nil {
		t.Errorf("the state: the search not moved, or the people (-whole +got):\n%s", d)
	}
}

// TestStoppedCheckpointWritesNothing: the write of a move folded into a
// partial state (the recorder's Checkpoint) stopped by the run's context
// writes nothing, the rows as before; the recording then writes nothing
// more (the write may have committed): no Checkpoint, no rows at Close,
// no Commit. The next load folds the recorded move in.
func TestStoppedCheckpointWritesNothing(t *testing.T) {
	m := newMovedRecording(t)
	cp := m.rec.(interface{ Checkpoint(context.Context) error })
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if err := cp.Checkpoint(stopped); !errors.Is(err, context.Canceled) {
		t.Fatalf("checkpoint after the interrupt: %v, want it stopped", err)
	}
	n := len(m.whole.Searches[m.from].LeadIDs)
	if got := m.named(t, m.from); got != n || n == 0 {
		t.Fatalf("after the stopped write, %d people found by %s, want %d: written in part", got, m.from, n)
	}
	if err := cp.Checkpoint(context.Background()); err == nil {
		t.Errorf("a checkpoint after a failed one wrote again")
	}
	must(t, m.rec.Close())
	if got := m.named(t, m.from); got != n {
		t.Errorf("after Close, %d people found by %s, want %d: the failed write was made again", got, m.from, n)
	}
	must(t, m.base.Close())
	if err := m.b.Commit(m.s); err == nil || !strings.Contains(err.Error(), "the write of the moves failed") {
		t.Errorf("commit after a failed write of the moves: %v, want it refused", err)
	}
	if got := m.named(t, m.from); got != n {
		t.Errorf("after Commit, %d people found by %s, want %d", got, m.from, n)
	}
	got, err := NewStore(m.path).AsBackend().Load()
	must(t, err)
	m.sameAsWhole(t, got)
}

// TestCheckpointRenamesInSQL: the recorder's Checkpoint renames the moved
// search in the table of addresses, writing no person's row, and the
// state committed is the move folded into the state read whole.
func TestCheckpointRenamesInSQL(t *testing.T) {
	m := newMovedRecording(t)
	n := len(m.whole.Searches[m.from].LeadIDs)
	_, err := m.db.Exec(`CREATE TABLE people_written (id text); CREATE TRIGGER people_written AFTER UPDATE ON people BEGIN INSERT INTO people_written VALUES (new.id); END`)
	must(t, err)
	must(t, m.rec.(interface{ Checkpoint(context.Context) error }).Checkpoint(context.Background()))
	if m.named(t, m.from) != 0 || m.named(t, "search.moved") != n {
		t.Errorf("after the write, %d people found by %s and %d by search.moved", m.named(t, m.from), m.from, m.named(t, "search.moved"))
	}
	var written int
	must(t, m.db.QueryRow(`SELECT count(*) FROM people_written`).Scan(&written))
	if written != 0 {
		t.Errorf("the move rewrote %d people's rows, want none (one row of addresses renamed)", written)
	}
	must(t, m.rec.Close())
	must(t, m.base.Close())
	must(t, m.b.Commit(m.s))
	got, err := m.b.Load()
	must(t, err)
	m.sameAsWhole(t, got)
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
