package local

import (
	"os"
	"testing"

	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/testenv"
)

// TestMain keeps this package's temporary folders, and the states in
// them, in memory (testenv.RunInMemory): no test here needs a disk. The
// collector runs less often (testenv.CollectLess). A push passes the
// people in batches of 500 (backend.StreamBatch), so that the states of
// several batches are a tenth as large.
func TestMain(m *testing.M) {
	testenv.CollectLess()
	backend.StreamBatch = 500
	os.Exit(testenv.RunInMemory(m))
}
