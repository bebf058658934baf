package pg

import (
	"os"
	"testing"

	"github.com/leadsync/leadsync/internal/testenv"
)

// TestMain keeps this package's temporary folders, and the states in
// them, in memory (testenv.RunInMemory): no test here needs a disk. It
// points the connection hooks at reuseConns' pools before any test
// runs (hookConnPools).
func TestMain(m *testing.M) {
	hookConnPools()
	os.Exit(testenv.RunInMemory(m))
}
