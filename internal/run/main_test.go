package run

import (
	"os"
	"testing"

	"github.com/leadsync/leadsync/internal/testenv"
)

// TestMain keeps this package's temporary folders, and the states in
// them, in memory (testenv.RunInMemory): no test here needs a disk. The
// collector runs less often (testenv.CollectLess).
func TestMain(m *testing.M) {
	testenv.CollectLess()
	os.Exit(testenv.RunInMemory(m))
}
