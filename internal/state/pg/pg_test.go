package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/state"
)

// Append of the same call again (a retry after an error whose commit did
// go through) records it once.
func TestAppendRetryIdempotent(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	b := newPG(t, cs, pooledSchema(t, cs), "", alice)
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
	t.Parallel()
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
		for _, want := range []string{"version 99", "leadsync 9.9.9", fmt.Sprintf("reads version %d", SchemaVersion), "Upgrade leadsync", "nothing was changed"} {
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
		old, schema, c := schemaAt(t, cs, 1)
		ctx := context.Background()
		var err error
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
	t.Parallel()
	cs := testConnStr(t)
	schema := pooledSchema(t, cs)
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
	t.Run("checkpoint with the lock taken by another run", func(t *testing.T) {
		b := newPG(t, cs, schema, "", alice)
		l, err := b.Lock("apply")
		mustNoErr(t, err, "lock")
		defer l.Unlock()
		s, err := b.Load()
		mustNoErr(t, err, "load")
		rec, err := b.OpenJournal(s)
		mustNoErr(t, err, "open")
		e := evs[3]
		mustNoErr(t, rec.Append(&e), "append")
		mustNoErr(t, s.Fold(e), "apply")
		kill(t, b)
		other, err := newPG(t, cs, schema, "", bob).Lock("apply")
		mustNoErr(t, err, "the other run's lock")
		defer other.Unlock()
		var lost *LockLostError
		if err := rec.(*recorder).Checkpoint(context.Background()); !errors.As(err, &lost) {
			t.Fatalf("checkpoint with the lock taken by another run: %v, want the lock lost", err)
		}
		c, err := connect(context.Background(), cs)
		mustNoErr(t, err, "connect")
		defer c.Close(context.Background())
		var n int
		mustNoErr(t, c.QueryRow(context.Background(), `SELECT count(*) FROM `+pgx.Identifier{schema, "events"}.Sanitize()+` WHERE journal_id = $1`,
			rec.(*recorder).id).Scan(&n), "count")
		if n != 1 {
			t.Errorf("%d events of the run left, want its call kept: the checkpoint wrote under the other run", n)
		}
		rec.Close()
		if err := b.Commit(s); !errors.As(err, &lost) {
			t.Errorf("commit after the lock was lost: %v", err)
		}
	})
}

// TestHistoryColumns: the history table has a column for every field of a
// drift; a field added to state.Drift needs one (and a migration), as the
// table has no extra column to keep it in.
func TestHistoryColumns(t *testing.T) {
	t.Parallel()
	if driftExtra.Has {
		t.Fatal("state.Drift has a field that no column of person_history models")
	}
}
