package pg

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// A test hook: the package's tests may hand a closed Backend's two
// connections (conn and conn2), and a lock's let go cleanly, to the next
// Backend opened, as a pool would, because a new session costs the
// server about 7 ms of CPU. The conformance suite opens about 6,000; its
// locks alone 615 more, before they were handed on. Both are nil in production,
// where each Backend connects and its Close closes.
var (
	// takeConn returns an idle connection to connStr, or nil.
	takeConn func(connStr string) *pgx.Conn
	// giveConn keeps c for a later takeConn and says so; false, the
	// caller closes c.
	giveConn func(connStr string, c *pgx.Conn) bool
)

// dataConn opens a connection for the backend's reads and writes (conn
// or conn2): one the test hook keeps, or a new one.
func (b *Backend) dataConn(ctx context.Context) (*pgx.Conn, error) {
	if takeConn != nil {
		if c := takeConn(b.opts.ConnStr); c != nil {
			return c, nil
		}
	}
	return connect(ctx, b.opts.ConnStr)
}

// closeDataConn closes c, or gives it to the test hook.
func (b *Backend) closeDataConn(c *pgx.Conn) error {
	if giveConn != nil && giveConn(b.opts.ConnStr, c) {
		return nil
	}
	return c.Close(context.Background())
}
