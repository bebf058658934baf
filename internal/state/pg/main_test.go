package pg

import (
	"fmt"
	"os"
	"testing"

	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/testenv"
)

// TestMain keeps this package's temporary folders, and the states in
// them, in memory (testenv.RunInMemory): no test here needs a disk. It
// points the connection hooks at reuseConns' pools before any test
// runs (hookConnPools). A push passes the people in batches of 500
// (backend.StreamBatch), so that the states of several batches are a
// tenth as large.
func TestMain(m *testing.M) {
	backend.StreamBatch = 500
	hookConnPools()
	code := testenv.RunInMemory(m)
	if err := closeSharedSchemas(); err != nil {
		fmt.Fprintln(os.Stderr, "cleanup:", err)
		code = 1
	}
	os.Exit(code)
}
