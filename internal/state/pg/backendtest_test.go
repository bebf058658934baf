package pg

import (
	"context"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// The pg backend passes the conformance suite: each test gets a fresh
// schema; a handle is a Backend of its own (a process of its own, with its
// connections); a kill closes its connections, the lock's included, as the
// kernel does to a killed process's sockets. The cases run side by side:
// each waits on the server most of its time. A closed handle's
// connections serve the next handle (reuseConns), as a pool would, and
// an ended case's schema, emptied, the next case or test (pooledSchema).
func TestConformance(t *testing.T) {
	t.Parallel()
	cs, _ := reuseConns(t, testConnStr(t), "leadsync")
	backendtest.Run(t, backendtest.Kind{
		Parallel: true,
		Together: 6,
		New: func(t *testing.T) func(ws string, w backendtest.Who) backend.Backend {
			schema := pooledSchema(t, testConnStr(t))
			return func(ws string, w backendtest.Who) backend.Backend {
				return newPG(t, cs, schema, ws, w)
			}
		},
		Kill: func(t *testing.T, b backend.Backend, l backend.Unlocker) {
			b.(*Backend).Close()
			conn := l.(*Lock).conn
			pid := conn.PgConn().PID()
			conn.Close(context.Background())
			waitSessionGone(t, cs, pid)
		},
		KillClaims: func(t *testing.T, c backend.Claims) {
			pc := c.(*claims)
			pc.closed = true
			pc.conn.Close(context.Background())
			waitSessionEnded(t, pc)
		},
	})
}

// waitSessionGone waits until the server has ended the session pid, whose
// connection the client closed: the server ends it (and frees its
// advisory lock) a moment later, as it would a killed process's, and on a
// busy machine a lock taken at once could still find it held. No clock
// involved: the server says when.
func waitSessionGone(t *testing.T, cs string, pid uint32) {
	t.Helper()
	c, err := connect(context.Background(), cs)
	mustNoErr(t, err, "connect")
	defer c.Close(context.Background())
	for {
		var n int
		mustNoErr(t, c.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity WHERE pid = $1`, int64(pid)).Scan(&n), "activity")
		if n == 0 {
			return
		}
	}
}

// waitSessionEnded waits until the server has ended the session of a
// holder whose connection was closed, as it does a killed process's: the
// server notices a closed socket on its own time, and until then the
// holder's advisory lock is held. Taking that lock from another session
// waits exactly that long (no polling); it is let go at once.
func waitSessionEnded(t *testing.T, c *claims) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := connect(ctx, c.b.opts.ConnStr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, $2)`, int32(claimHolderClass), c.lockKey); err != nil {
		t.Fatalf("waiting for the killed holder's session to end: %v", err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_unlock($1, $2)`, int32(claimHolderClass), c.lockKey); err != nil {
		t.Fatal(err)
	}
}
