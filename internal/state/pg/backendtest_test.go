package pg

import (
	"context"
	"testing"

	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// The pg backend passes the conformance suite: each test gets a fresh
// schema; a handle is a Backend of its own (a process of its own, with its
// connections); a kill closes its connections, the lock's included, as the
// kernel does to a killed process's sockets.
func TestConformance(t *testing.T) {
	cs := testConnStr(t)
	backendtest.Run(t, backendtest.Kind{
		New: func(t *testing.T) func(ws string, w backendtest.Who) backend.Backend {
			schema := testSchema(t, cs)
			return func(ws string, w backendtest.Who) backend.Backend {
				return newPG(t, cs, schema, ws, w)
			}
		},
		Kill: func(t *testing.T, b backend.Backend, l backend.Unlocker) {
			b.(*Backend).Close()
			l.(*Lock).conn.Close(context.Background())
		},
		KillClaims: func(t *testing.T, c backend.Claims) {
			pc := c.(*claims)
			pc.closed = true
			pc.conn.Close(context.Background())
		},
	})
}
