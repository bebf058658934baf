package export

import (
	"os"
	"testing"

	"github.com/leadsync/leadsync/internal/testenv"
)

// TestMain keeps this package's temporary folders, and the states in
// them, in memory (testenv.RunInMemory): no test here needs a disk.
func TestMain(m *testing.M) { os.Exit(testenv.RunInMemory(m)) }
