package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// apply runs the life of one apply on b: lock, load, record each event
// (append, then apply, as the runner does), close, commit, unlock.
func apply(t *testing.T, b backend.Backend, evs []state.Event) *state.State {
	t.Helper()
	l, err := b.Lock("apply")
	mustNoErr(t, err, "lock")
	defer l.Unlock()
	s, err := b.Load()
	mustNoErr(t, err, "load")
	rec, err := b.OpenJournal(s)
	mustNoErr(t, err, "open journal")
	for i := range evs {
		e := evs[i]
		mustNoErr(t, rec.Append(&e), "append %d", i)
		mustNoErr(t, s.Fold(e), "apply %d", i)
	}
	mustNoErr(t, rec.Close(), "close")
	mustNoErr(t, b.Commit(s), "commit")
	mustNoErr(t, l.Unlock(), "unlock")
	return s
}

// The same calls give the same state on every backend, and a reload gives
// back exactly what was committed.
func TestConformanceRoundTrip(t *testing.T) {
	for _, k := range kinds(t) {
		t.Run(k.name, func(t *testing.T) {
			want := state.New()
			for _, e := range events() {
				mustNoErr(t, want.Fold(e), "apply")
			}
			b := k.open(alice)
			s := apply(t, b, events())
			if d := cmp.Diff(canon(t, want), canon(t, s)); d != "" {
				t.Fatalf("applied state differs from the reference (-want +got):\n%s", d)
			}
			again, err := k.open(bob).Load()
			mustNoErr(t, err, "reload")
			if d := cmp.Diff(canon(t, s), canon(t, again)); d != "" {
				t.Fatalf("reloaded state differs (-committed +reloaded):\n%s", d)
			}
			if n := again.ErasedEnrichments["enrich.contacts"]; n != 1 {
				t.Fatalf("reload counts %d erased enrichments of enrich.contacts, want 1 (Fay's)", n)
			}
			if again.Lineage != s.Lineage || again.Serial != s.Serial {
				t.Fatalf("reload has lineage/serial %s/%d, committed %s/%d", again.Lineage, again.Serial, s.Lineage, s.Serial)
			}
			// A second run on top changes only what it touches.
			more := []state.Event{{At: at(20), Kind: state.EventForget, Address: `search.cto["Paris"]`},
				splitEvent(at(21), []string{"B"}, 3)} // the split run completes: search.split's record
			for _, e := range more {
				mustNoErr(t, want.Fold(e), "apply")
			}
			s2 := apply(t, k.open(bob), more)
			again, err = k.open(alice).Load()
			mustNoErr(t, err, "reload")
			if d := cmp.Diff(canon(t, want), canon(t, again)); d != "" {
				t.Fatalf("state after a second run differs (-want +got):\n%s", d)
			}
			if again.Searches["search.split"] == nil || again.Searches["search.split"].Split == nil || len(again.Splits) != 0 {
				t.Fatalf("the completed split run is not the search's record: %+v, under way %v", again.Searches["search.split"], again.Splits)
			}
			if s2.Serial <= s.Serial || again.Serial != s2.Serial {
				t.Fatalf("serial not raised by the second run: %d, then %d (reloaded %d)", s.Serial, s2.Serial, again.Serial)
			}
		})
	}
}

// A run killed after some calls loses none of them: the next load has them.
func TestConformanceKilledApply(t *testing.T) {
	evs := events()
	// Killed after 6 calls, and after the last one (in a split run).
	for _, cut := range []int{6, len(evs)} {
		t.Run(fmt.Sprint("after ", cut), func(t *testing.T) { killedApply(t, evs, cut) })
	}
}

func killedApply(t *testing.T, evs []state.Event, cut int) {
	for _, k := range kinds(t) {
		t.Run(k.name, func(t *testing.T) {
			want := state.New()
			for _, e := range evs[:cut] {
				mustNoErr(t, want.Fold(e), "apply")
			}
			b := k.open(alice)
			l, err := b.Lock("apply")
			mustNoErr(t, err, "lock")
			s, err := b.Load()
			mustNoErr(t, err, "load")
			rec, err := b.OpenJournal(s)
			mustNoErr(t, err, "open journal")
			for i := range evs[:cut] {
				e := evs[i]
				mustNoErr(t, rec.Append(&e), "append %d", i)
				mustNoErr(t, s.Fold(e), "apply %d", i)
			}
			// Killed here: no Close, no Commit, no Unlock.
			if k.pg {
				// What the kernel does to a killed process's sockets.
				pb := b.(*Backend)
				pb.Close()
				l.(*Lock).conn.Close(context.Background())
			}
			next := k.open(bob)
			got, err := next.Load()
			mustNoErr(t, err, "load after the kill")
			if d := cmp.Diff(canon(t, want), canon(t, got)); d != "" {
				t.Fatalf("state after the kill lost or changed calls (-want +got):\n%s", d)
			}
			if !k.pg {
				return // the local lock file stays until the stale-lock check or force-unlock
			}
			// The lock went with the connection: the next run takes it at once,
			// folds the recorded calls in and finishes.
			rest := evs[cut:]
			s2 := apply(t, next, rest)
			for _, e := range rest {
				mustNoErr(t, want.Fold(e), "apply")
			}
			if d := cmp.Diff(canon(t, want), canon(t, s2)); d != "" {
				t.Fatalf("resumed state differs (-want +got):\n%s", d)
			}
			again, err := k.open(alice).Load()
			mustNoErr(t, err, "reload")
			if d := cmp.Diff(canon(t, want), canon(t, again)); d != "" {
				t.Fatalf("reloaded resumed state differs (-want +got):\n%s", d)
			}
			var pending int
			c := next.(*Backend)
			c.mu.Lock()
			err = c.conn.QueryRow(context.Background(), c.sql(`SELECT count(*) FROM {s}.events`)).Scan(&pending)
			c.mu.Unlock()
			mustNoErr(t, err, "count events")
			if pending != 0 {
				t.Fatalf("%d recorded calls left after a clean commit", pending)
			}
		})
	}
}

// A second run is refused at once, with the holder named.
func TestConformanceLockRefusedNamesHolder(t *testing.T) {
	for _, k := range kinds(t) {
		t.Run(k.name, func(t *testing.T) {
			l, err := k.open(alice).Lock("apply")
			mustNoErr(t, err, "lock")
			_, err = k.open(bob).Lock("apply")
			if err == nil {
				t.Fatal("second lock taken while held")
			}
			for _, want := range []string{"alice@laptop", "pid 4242", `"apply"`, "2026-05-01 13:00:00 UTC"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("refusal %q does not say %q", err, want)
				}
			}
			mustNoErr(t, l.Unlock(), "unlock")
			l2, err := k.open(bob).Lock("apply")
			mustNoErr(t, err, "lock after unlock")
			mustNoErr(t, l2.Unlock(), "unlock")
		})
	}
}

// LockWait gets the lock once the holder lets go.
func TestConformanceLockWait(t *testing.T) {
	for _, k := range kinds(t) {
		t.Run(k.name, func(t *testing.T) {
			l, err := k.open(alice).Lock("apply")
			mustNoErr(t, err, "lock")
			// Nothing waited for: refused at once.
			_, err = k.open(bob).LockWait(context.Background(), "apply", 0)
			if err == nil {
				t.Fatal("lock taken while held")
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				l2, err := k.open(bob).LockWait(ctx, "apply", time.Hour)
				if err == nil {
					err = l2.Unlock()
				}
				done <- err
			}()
			mustNoErr(t, l.Unlock(), "unlock")
			mustNoErr(t, <-done, "lock wait")
		})
	}
}

// Plan, show and export read while an apply holds the lock and is midway,
// and see the calls it completed.
func TestConformanceSnapshotWhileLocked(t *testing.T) {
	evs := events()
	for _, k := range kinds(t) {
		t.Run(k.name, func(t *testing.T) {
			b := k.open(alice)
			l, err := b.Lock("apply")
			mustNoErr(t, err, "lock")
			defer l.Unlock()
			s, err := b.Load()
			mustNoErr(t, err, "load")
			rec, err := b.OpenJournal(s)
			mustNoErr(t, err, "open journal")
			for i := range evs[:3] {
				e := evs[i]
				mustNoErr(t, rec.Append(&e), "append")
				mustNoErr(t, s.Fold(e), "apply")
			}
			got, err := k.open(bob).Load()
			mustNoErr(t, err, "load while locked")
			if got.Searches[`search.cto["Berlin"]`] == nil || got.Profiles["profile.founder"] == nil {
				t.Fatalf("a read during the apply misses completed calls: %v", got.Addresses(false))
			}
			mustNoErr(t, rec.Close(), "close")
			mustNoErr(t, b.Commit(s), "commit")
		})
	}
}

// Lineage stays, serial rises with every write: what stale saved plans are
// detected by.
func TestConformanceLineageSerial(t *testing.T) {
	for _, k := range kinds(t) {
		t.Run(k.name, func(t *testing.T) {
			first := apply(t, k.open(alice), events()[:2])
			planned, err := k.open(bob).Load() // a plan saved now records this
			mustNoErr(t, err, "load")
			apply(t, k.open(alice), events()[2:4])
			now, err := k.open(bob).Load()
			mustNoErr(t, err, "load")
			if now.Lineage != first.Lineage || planned.Lineage != first.Lineage {
				t.Fatalf("lineage changed: %s, %s, %s", first.Lineage, planned.Lineage, now.Lineage)
			}
			if now.Serial <= planned.Serial {
				t.Fatalf("serial %d after a run, %d before: a saved plan would not be seen as stale", now.Serial, planned.Serial)
			}
		})
	}
}

// Append of the same call again (a retry after an error whose commit did
// go through) records it once.
func TestAppendRetryIdempotent(t *testing.T) {
	cs := testConnStr(t)
	b := newPG(t, cs, testSchema(t, cs), "", alice)
	s, err := b.Load()
	mustNoErr(t, err, "load")
	r, err := b.OpenJournal(s)
	mustNoErr(t, err, "open")
	rec := r.(*recorder)
	e := events()[1]
	mustNoErr(t, rec.Append(&e), "append")
	rec.seq-- // as if the commit's answer had been lost
	mustNoErr(t, rec.Append(&e), "append again")
	other := events()[2]
	rec.seq--
	if err := rec.Append(&other); err == nil || !strings.Contains(err.Error(), "already recorded with other content") {
		t.Fatalf("a different call under a recorded seq: %v", err)
	}
	rec.seq++
	got, err := newPG(t, cs, b.schema, "", bob).Load()
	mustNoErr(t, err, "load")
	if n := got.Searches[e.Address].Runs; n != 1 {
		t.Fatalf("the search is recorded %d times", n)
	}
}

func TestSchemaVersion(t *testing.T) {
	cs := testConnStr(t)
	t.Run("newer refused", func(t *testing.T) {
		schema := testSchema(t, cs)
		b := newPG(t, cs, schema, "", alice)
		apply(t, b, events()[:2])
		_, err := b.conn.Exec(context.Background(), b.sql(`UPDATE {s}.schema_version SET version = 99, leadsync_version = '9.9.9'`))
		mustNoErr(t, err, "set version")
		fresh := newPG(t, cs, schema, "", bob)
		_, err = fresh.Load()
		var ns *NewerSchemaError
		if !errors.As(err, &ns) {
			t.Fatalf("load of a newer schema: %v", err)
		}
		for _, want := range []string{"version 99", "leadsync 9.9.9", "reads version 3", "Upgrade leadsync", "nothing was changed"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q does not say %q", err, want)
			}
		}
		if _, err := fresh.Lock("apply"); !errors.As(err, &ns) {
			t.Fatalf("lock on a newer schema: %v", err)
		}
		if err := fresh.Commit(state.New()); !errors.As(err, &ns) {
			t.Fatalf("commit on a newer schema: %v", err)
		}
	})
	t.Run("older migrated", func(t *testing.T) {
		schema := testSchema(t, cs)
		old := newPG(t, cs, schema, "", alice)
		ctx := context.Background()
		old.mu.Lock()
		c, err := old.c(ctx)
		mustNoErr(t, err, "connect")
		mustNoErr(t, old.migrate(ctx, c, 1), "make a version 1 schema")
		_, err = c.Exec(ctx, old.sql(`INSERT INTO {s}.workspaces (name, lineage, serial, format_version) VALUES ('default', 'lin-1', 7, 1)`))
		mustNoErr(t, err, "insert")
		_, err = c.Exec(ctx, old.sql(`INSERT INTO {s}.people (workspace, id, full_name, found_by) VALUES ('default', 'n1', 'Anna', '{search.a}')`))
		mustNoErr(t, err, "insert")
		old.mu.Unlock()
		s, err := newPG(t, cs, schema, "", bob).Load()
		mustNoErr(t, err, "load of a version 1 schema")
		if s.Lineage != "lin-1" || s.Serial != 7 || s.People["n1"] == nil || s.People["n1"].Lead.FullName != "Anna" {
			t.Fatalf("migrated state: lineage %s serial %d people %v", s.Lineage, s.Serial, s.People)
		}
		v, _, err := old.readVersion(ctx, old.conn)
		mustNoErr(t, err, "version")
		if v != SchemaVersion {
			t.Fatalf("schema version %d after migration, want %d", v, SchemaVersion)
		}
	})
}

// A lock whose connection is cut is taken again when nobody took it
// meanwhile; when another run took it, the call is still recorded (it was
// paid for), Append says the lock was lost, and the next load has the call.
func TestLockLost(t *testing.T) {
	cs := testConnStr(t)
	schema := testSchema(t, cs)
	evs := events()
	kill := func(t *testing.T, b *Backend) {
		t.Helper()
		b.mu.Lock()
		pid := b.lockPID
		b.mu.Unlock()
		c, err := connect(context.Background(), cs)
		mustNoErr(t, err, "connect")
		defer c.Close(context.Background())
		var ok bool
		mustNoErr(t, c.QueryRow(context.Background(), `SELECT pg_terminate_backend($1)`, pid).Scan(&ok), "terminate")
		// Wait until the server has ended that session (no clock involved:
		// pg_terminate_backend returns before the session is gone).
		for {
			var n int
			mustNoErr(t, c.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE pid = $1`, pid).Scan(&n), "activity")
			if n == 0 {
				return
			}
		}
	}
	t.Run("taken again", func(t *testing.T) {
		b := newPG(t, cs, schema, "", alice)
		l, err := b.Lock("apply")
		mustNoErr(t, err, "lock")
		defer l.Unlock()
		s, err := b.Load()
		mustNoErr(t, err, "load")
		rec, err := b.OpenJournal(s)
		mustNoErr(t, err, "open")
		kill(t, b)
		e := evs[1]
		mustNoErr(t, rec.Append(&e), "append after the lock's connection was cut")
		mustNoErr(t, s.Fold(e), "apply")
		if _, err := newPG(t, cs, schema, "", bob).Lock("apply"); err == nil || !strings.Contains(err.Error(), "alice@laptop") {
			t.Fatalf("the lock was not taken again: %v", err)
		}
		mustNoErr(t, rec.Close(), "close")
		mustNoErr(t, b.Commit(s), "commit")
	})
	t.Run("taken by another run", func(t *testing.T) {
		b := newPG(t, cs, schema, "", alice)
		l, err := b.Lock("apply")
		mustNoErr(t, err, "lock")
		defer l.Unlock()
		s, err := b.Load()
		mustNoErr(t, err, "load")
		rec, err := b.OpenJournal(s)
		mustNoErr(t, err, "open")
		kill(t, b)
		other, err := newPG(t, cs, schema, "", bob).Lock("apply")
		mustNoErr(t, err, "the other run's lock")
		defer other.Unlock()
		e := evs[2]
		var lost *LockLostError
		if err := rec.Append(&e); !errors.As(err, &lost) {
			t.Fatalf("append with the lock taken by another run: %v", err)
		}
		// The caller does not apply it; closing and committing keep it.
		rec.Close()
		b.Commit(s)
		got, err := newPG(t, cs, schema, "", bob).Load()
		mustNoErr(t, err, "load")
		if got.Profiles["profile.founder"] == nil {
			t.Fatal("the call recorded when the lock was lost is gone")
		}
	})
}

// The data mark an export records (state.DataMark) is that of the state the
// apply committed, equal to a reload's; taking and releasing the lock moves
// it on no backend, and a killed apply's calls move it though nothing was
// committed (on the local file its serial stays: the journal says it).
func TestConformanceDataMark(t *testing.T) {
	for _, k := range kinds(t) {
		t.Run(k.name, func(t *testing.T) {
			committed := apply(t, k.open(alice), events()[:2]).DataMark()
			reloaded, err := k.open(bob).Load()
			mustNoErr(t, err, "reload")
			if m := reloaded.DataMark(); !m.Equal(committed) {
				t.Fatalf("reload's mark %+v, the committed state's %+v", m, committed)
			}
			b := k.open(alice)
			l, err := b.Lock("state rm")
			mustNoErr(t, err, "lock")
			mustNoErr(t, l.Unlock(), "unlock")
			again, err := k.open(bob).Load()
			mustNoErr(t, err, "reload")
			if m := again.DataMark(); !m.Equal(committed) {
				t.Fatalf("a lock taken and released moved the mark: %+v, was %+v", m, committed)
			}

			// Killed after one call: no commit, but the next load holds it.
			b = k.open(alice)
			l, err = b.Lock("apply")
			mustNoErr(t, err, "lock")
			s, err := b.Load()
			mustNoErr(t, err, "load")
			rec, err := b.OpenJournal(s)
			mustNoErr(t, err, "open journal")
			e := events()[2]
			mustNoErr(t, rec.Append(&e), "append")
			if k.pg {
				b.(*Backend).Close()
				l.(*Lock).conn.Close(context.Background())
			}
			killed, err := k.open(bob).Load()
			mustNoErr(t, err, "load after the kill")
			if m := killed.DataMark(); m.Equal(committed) {
				t.Fatalf("a killed apply's call left the mark as it was: %+v", m)
			}
		})
	}
}
