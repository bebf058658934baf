package pg

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// connPool keeps the connections closed Backends give back (takeConn,
// giveConn) for the next Backend a test opens: the conformance suite's
// handles, each a process of its own, opened about 6,000 sessions, 7 ms
// of the server's CPU each. Only an idle connection, outside any
// transaction, is kept: a Backend's own connections hold no lock and no
// session setting (its lock, claims and pacing have connections of
// their own, which are closed).
type connPool struct {
	mu    sync.Mutex
	cs    string
	idle  []*pgx.Conn
	taken int // connections handed out again
}

// maxIdle bounds the idle connections kept: six cases at a time, two
// connections per handle, with room to spare below the server's 200.
const maxIdle = 24

// reuseConns makes the Backends opened until t ends share connPool's
// connections to cs. The caller runs no other test at the same time
// (the hooks are the package's).
func reuseConns(t *testing.T, cs string) *connPool {
	p := &connPool{cs: cs}
	takeConn, giveConn = p.take, p.give
	t.Cleanup(func() {
		takeConn, giveConn = nil, nil
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.idle {
			c.Close(context.Background())
		}
		p.idle = nil
	})
	return p
}

func (p *connPool) take(cs string) *pgx.Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	for cs == p.cs && len(p.idle) > 0 {
		c := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if !c.IsClosed() {
			p.taken++
			return c
		}
	}
	return nil
}

func (p *connPool) give(cs string, c *pgx.Conn) bool {
	if cs != p.cs || c.IsClosed() || c.PgConn().TxStatus() != 'I' {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) >= maxIdle {
		return false
	}
	p.idle = append(p.idle, c)
	return true
}

// A closed Backend's connection serves the next Backend under the hook,
// and a connection left inside a transaction is closed, not kept.
func TestReuseConnsHandsOnIdleConnections(t *testing.T) {
	cs := testConnStr(t)
	schema := testSchema(t, cs)
	p := reuseConns(t, cs)
	a := newPG(t, cs, schema, "", alice)
	apply(t, a, events())
	pid := a.conn.PgConn().PID()
	a.Close()
	b := newPG(t, cs, schema, "", bob)
	if _, err := b.Load(); err != nil {
		t.Fatal(err)
	}
	if got := b.conn.PgConn().PID(); got != pid || p.taken == 0 {
		t.Fatalf("the second Backend's session is %d, want the first's %d given back (taken %d)", got, pid, p.taken)
	}
	ctx := context.Background()
	if _, err := b.conn.Exec(ctx, `BEGIN`); err != nil {
		t.Fatal(err)
	}
	conn := b.conn
	b.Close()
	if !conn.IsClosed() || len(p.idle) != 1 {
		t.Fatalf("a connection inside a transaction was kept (closed %v, %d idle)", conn.IsClosed(), len(p.idle))
	}
}
