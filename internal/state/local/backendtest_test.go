package local

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// The local backend passes the conformance suite: each test gets a fresh
// folder; a handle is a workspace of its own Store (a process of its own);
// a kill closes the lock file, as the kernel does.
func TestConformance(t *testing.T) {
	backendtest.Run(t, backendtest.Kind{
		New: func(t *testing.T) func(ws string, w backendtest.Who) backend.Backend {
			path := filepath.Join(t.TempDir(), ".leadsync", "state.json")
			return func(ws string, w backendtest.Who) backend.Backend {
				set := NewWorkspaces(path, func(p string) *Store {
					st := NewStore(p)
					st.User, st.Host, st.PID = func() string { return w.User }, func() string { return w.Host }, w.PID
					st.Now = func() time.Time { return backendtest.Now }
					return st
				})
				b, err := set.Open(ws)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
		},
		Kill: func(t *testing.T, _ backend.Backend, l backend.Unlocker) {
			die(l.(*Lock))
		},
		KillClaims: func(t *testing.T, c backend.Claims) {
			fc := c.(*fileClaims)
			fc.closed = true
			fc.self.Close()
		},
	})
}
