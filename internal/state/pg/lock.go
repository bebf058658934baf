package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/textfmt"
	"github.com/leadsync/leadsync/internal/version"
)

// LockedError is returned when another run holds the workspace's lock.
type LockedError struct {
	Where string            // the backend's Describe
	Info  *backend.LockInfo // nil when the holder did not record itself yet
	// BackendPID is the holder's database session, for pg_terminate_backend.
	BackendPID int
	Now        time.Time
}

func (e *LockedError) Error() string {
	if e.Info == nil {
		return fmt.Sprintf("%s is locked by another leadsync run (it is just starting: its name is not recorded yet). "+
			"Wait for it to finish, or wait for the lock with --lock-timeout 5m", e.Where)
	}
	i := e.Info
	age := ""
	if !i.Created.IsZero() && !e.Now.IsZero() {
		age = " (" + textfmt.Age(e.Now.Sub(i.Created)) + " ago)"
	}
	return fmt.Sprintf("%s is locked by %s (pid %d on %s) for %q since %s%s. "+
		"Wait for that run to finish, or wait for the lock with --lock-timeout 5m. "+
		"The lock belongs to that run's database connection: if the run dies, the lock goes with it (no force-unlock needed)",
		e.Where, i.Who, i.PID, i.Host, i.Operation, i.Created.UTC().Format("2006-01-02 15:04:05 MST"), age)
}

// Lock is a held workspace lock: a session-level pg_advisory_lock on a
// connection of its own, so that it lives exactly as long as this process
// (a killed run's connection closes and the lock goes with it).
type Lock struct {
	b    *Backend
	conn *pgx.Conn
	Info backend.LockInfo
}

// key is the advisory lock key of the backend's workspace.
func (b *Backend) key() int64 { return lockKey("leadsync/" + b.schema + "/" + b.workspace) }

// Lock takes the workspace's lock for op, or fails at once with a
// *LockedError naming the holder.
func (b *Backend) Lock(op string) (backend.Unlocker, error) {
	// A holder that was a process of this host and is gone (killed, a
	// crash) takes its lock with it once PostgreSQL sees its connection
	// closed: a moment, longer on a busy server. Lock waits for that
	// (deadHolderWait at most), as a run started just after a kill -9
	// should not be refused by the run it replaces.
	l, err := backend.RetryLock(context.Background(), deadHolderWait, func() (*Lock, error) { return b.lock(op) }, b.deadHolder)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// deadHolderWait is how long Lock waits for the session of a holder that
// is no longer running to end.
const deadHolderWait = 15 * time.Second

// deadHolder reports whether err is a refused lock whose holder was a
// process of this host that no longer runs.
func (b *Backend) deadHolder(err error) bool {
	var le *LockedError
	return errors.As(err, &le) && le.Info != nil && le.Info.Host == b.host() && le.Info.PID > 0 && !safefile.ProcessAlive(le.Info.PID)
}

// LockWait is Lock that waits up to timeout (or until ctx is done) for the
// holder to finish.
func (b *Backend) LockWait(ctx context.Context, op string, timeout time.Duration) (backend.Unlocker, error) {
	l, err := backend.RetryLock(ctx, timeout, func() (*Lock, error) { return b.lock(op) }, func(err error) bool {
		var le *LockedError
		return errors.As(err, &le)
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

func (b *Backend) lock(op string) (*Lock, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := b.lockConn(ctx) // the lock table must exist
	if err != nil {
		return nil, err
	}
	var got bool
	if err := c.QueryRow(ctx, `SELECT pg_try_advisory_lock($1)`, b.key()).Scan(&got); err != nil {
		c.Close(ctx)
		return nil, b.wrap("taking the lock", err)
	}
	if !got {
		le := b.holder(ctx, c)
		b.closeDataConn(c) // it holds nothing
		return nil, le
	}
	host := b.host()
	info := backend.LockInfo{
		ID:        newID(),
		Operation: op,
		Who:       b.user() + "@" + host,
		Host:      host,
		PID:       b.pid(),
		Created:   b.now().UTC().Truncate(time.Second),
		Version:   version.String(),
	}
	if err := b.recordHolder(ctx, c, info); err != nil {
		c.Close(ctx)
		return nil, b.wrap("recording the lock holder", err)
	}
	var bpid int
	if err := c.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&bpid); err != nil {
		c.Close(ctx)
		return nil, b.wrap("taking the lock", err)
	}
	l := &Lock{b: b, conn: c, Info: info}
	b.mu.Lock()
	b.lockPID, b.held = bpid, l
	b.mu.Unlock()
	return l, nil
}

// relock takes the workspace lock again, on a new connection, after the
// held lock's connection was lost; it fails when another run holds it. The
// caller holds b.mu.
func (b *Backend) relock(ctx context.Context) error {
	l := b.held
	if l == nil {
		return errors.New("no lock to take again")
	}
	c, err := connect(ctx, b.opts.ConnStr)
	if err != nil {
		return err
	}
	var got bool
	var bpid int
	if err := c.QueryRow(ctx, `SELECT pg_try_advisory_lock($1), pg_backend_pid()`, b.key()).Scan(&got, &bpid); err != nil || !got {
		c.Close(ctx)
		if err == nil {
			err = errors.New("held by another run")
		}
		return err
	}
	if err := b.recordHolder(ctx, c, l.Info); err != nil {
		c.Close(ctx)
		return err
	}
	if l.conn != nil {
		l.conn.Close(ctx)
	}
	l.conn, b.lockPID = c, bpid
	return nil
}

// recordHolder records, on c (the connection that holds the lock), who
// holds the workspace's lock: the row holder reads.
func (b *Backend) recordHolder(ctx context.Context, c *pgx.Conn, i backend.LockInfo) error {
	_, err := c.Exec(ctx, b.sql(`INSERT INTO {s}.locks (workspace, id, operation, who, host, pid, since, leadsync_version, backend_pid)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, pg_backend_pid())
		ON CONFLICT (workspace) DO UPDATE SET id = EXCLUDED.id, operation = EXCLUDED.operation, who = EXCLUDED.who, host = EXCLUDED.host,
		pid = EXCLUDED.pid, since = EXCLUDED.since, leadsync_version = EXCLUDED.leadsync_version, backend_pid = EXCLUDED.backend_pid`),
		b.workspace, i.ID, i.Operation, i.Who, i.Host, i.PID, i.Created, i.Version)
	return err
}

// holder describes who holds the lock now. The row is trusted only when
// its session holds an advisory lock: a killed holder's row stays behind
// until the next holder replaces it.
func (b *Backend) holder(ctx context.Context, c *pgx.Conn) *LockedError {
	le := &LockedError{Where: b.Describe(), Now: b.now()}
	var i backend.LockInfo
	var bpid int
	var live bool
	err := c.QueryRow(ctx, b.sql(`SELECT id, operation, who, host, pid, since, leadsync_version, backend_pid,
		EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'advisory' AND k.granted AND k.pid = l.backend_pid)
		FROM {s}.locks l WHERE workspace = $1`), b.workspace).Scan(&i.ID, &i.Operation, &i.Who, &i.Host, &i.PID, &i.Created, &i.Version, &bpid, &live)
	if err != nil || !live {
		return le
	}
	i.Created = i.Created.UTC()
	le.Info, le.BackendPID = &i, bpid
	return le
}

// Unlock releases the lock and closes its connection (gives it to the
// test hook, closeDataConn, when the lock was let go without an error).
func (l *Lock) Unlock() error {
	if l.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := l.conn.Exec(ctx, l.b.sql(`DELETE FROM {s}.locks WHERE workspace = $1 AND id = $2`), l.b.workspace, l.Info.ID)
	if err == nil {
		_, err = l.conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, l.b.key())
	}
	var cerr error
	if err == nil {
		cerr = l.b.closeDataConn(l.conn) // it holds nothing now
	} else {
		cerr = l.conn.Close(ctx)
	}
	l.conn = nil
	l.b.mu.Lock()
	if l.b.held == l {
		l.b.lockPID, l.b.held = 0, nil
	}
	l.b.mu.Unlock()
	if err != nil {
		// Closing the connection released the lock anyway.
		if cerr == nil {
			return nil
		}
		return l.b.wrap("releasing the lock", err)
	}
	return nil
}

// LockHolder returns who holds the workspace's lock now, nil when nobody
// does: the backend.LockReader ability.
func (b *Backend) LockHolder() (*backend.LockInfo, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b.mu.Lock()
	defer b.mu.Unlock()
	c, err := b.c(ctx)
	if err != nil {
		return nil, err
	}
	if v, _, err := b.readVersion(ctx, c); err != nil || v == 0 {
		return nil, err
	}
	return b.holder(ctx, c).Info, nil
}

// Holder is the run that holds the lock (nil while it is just starting):
// the backend.LockedError interface.
func (e *LockedError) Holder() *backend.LockInfo { return e.Info }

// ForceUnlockMessage explains, for `leadsync force-unlock`, why there is
// nothing to force on this backend and what to do instead.
func (b *Backend) ForceUnlockMessage() string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s is locked with a PostgreSQL advisory lock, which belongs to the holder's database connection: "+
		"a run that dies (even with kill -9) releases it by itself, so there is nothing to force-unlock.", b.Describe())
	b.mu.Lock()
	c, err := b.c(ctx)
	b.mu.Unlock()
	if err != nil {
		return sb.String()
	}
	if le := b.holder(ctx, c); le.Info != nil {
		fmt.Fprintf(&sb, "\nIt is held now by %s (pid %d on %s) for %q since %s. If that run hangs, stop it, or end its database session with\n  SELECT pg_terminate_backend(%d);",
			le.Info.Who, le.Info.PID, le.Info.Host, le.Info.Operation, le.Info.Created.Format("2006-01-02 15:04:05 MST"), le.BackendPID)
	} else {
		sb.WriteString("\nNo run holds it now.")
	}
	return sb.String()
}
