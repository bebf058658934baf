package local

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// The local backend passes the conformance suite, on both its files: each test gets a fresh
// folder; a handle is a workspace of its own Store (a process of its own);
// a kill closes the lock file, as the kernel does. The two files' cases,
// and the package's other parallel tests, run side by side: one after
// the other, the last long cases of state.db ran on one core alone.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, file := range []string{"state.db", "state.json"} {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			conformance(t, file)
		})
	}
}

// conformance runs the suite on the state file of that name: the SQLite
// database (state.db, the default) or the JSON file of earlier versions.
func conformance(t *testing.T, file string) {
	backendtest.Run(t, backendtest.Kind{
		Parallel: true,
		New: func(t *testing.T) func(ws string, w backendtest.Who) backend.Backend {
			path := filepath.Join(t.TempDir(), ".leadsync", file)
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
