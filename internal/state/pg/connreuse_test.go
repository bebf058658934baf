package pg

import (
	"context"
	"net/url"
	"slices"
	"strings"
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

// connPools are reuseConns' pools, by the connection string their
// Backends connect with. TestMain points takeConn and giveConn at them
// once, before any test: the pg tests run side by side, and none writes
// the hooks while another reads them.
var connPools = struct {
	mu sync.Mutex
	by map[string]*connPool
}{by: map[string]*connPool{}}

// hookConnPools points the package's hooks at connPools; a connection
// string without a pool gets a new connection and closes it, as without
// the hooks.
func hookConnPools() {
	takeConn = func(cs string) *pgx.Conn {
		if p := poolOf(cs); p != nil {
			return p.take(cs)
		}
		return nil
	}
	giveConn = func(cs string, c *pgx.Conn) bool {
		p := poolOf(cs)
		return p != nil && p.give(cs, c)
	}
}

// poolOf is the pool of the Backends connecting with cs, or nil.
func poolOf(cs string) *connPool {
	connPools.mu.Lock()
	defer connPools.mu.Unlock()
	return connPools.by[cs]
}

// reuseConns makes the Backends opened with the connection string it
// returns, until t ends, share a connPool's connections. That string is
// cs with the session's application_name set to app (leadsync sets
// "leadsync" when none is): a pool of its own, which no other test
// running at the same time connects with.
func reuseConns(t *testing.T, cs, app string) (string, *connPool) {
	if strings.HasPrefix(cs, "postgres://") || strings.HasPrefix(cs, "postgresql://") {
		sep := "?"
		if strings.Contains(cs, "?") {
			sep = "&"
		}
		cs += sep + "application_name=" + url.QueryEscape(app)
	} else {
		cs += " application_name=" + app
	}
	p := &connPool{cs: cs}
	connPools.mu.Lock()
	connPools.by[cs] = p
	connPools.mu.Unlock()
	t.Cleanup(func() {
		connPools.mu.Lock()
		delete(connPools.by, cs)
		connPools.mu.Unlock()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.idle {
			c.Close(context.Background())
		}
		p.idle = nil
	})
	return cs, p
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
// so does a lock's let go, and a connection left inside a transaction is
// closed, not kept.
func TestReuseConnsHandsOnIdleConnections(t *testing.T) {
	t.Parallel()
	cs, p := reuseConns(t, testConnStr(t), "leadsync_reuse_test")
	schema := testSchema(t, cs)
	a := newPG(t, cs, schema, "", alice)
	apply(t, a, events())
	if n := len(p.idle); n != 1 {
		t.Fatalf("the apply's lock, let go, left %d connections idle, want its own", n)
	}
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
	if !conn.IsClosed() || slices.Contains(p.idle, conn) {
		t.Fatalf("a connection inside a transaction was kept (closed %v, among the %d idle %v)", conn.IsClosed(), len(p.idle), slices.Contains(p.idle, conn))
	}
}
