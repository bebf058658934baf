package plan

import (
	"os"
	"testing"

	"github.com/leadsync/leadsync/internal/testenv"
)

// TestMain lets the collector run less often (testenv.CollectLess): the
// tests here make many small worlds, each garbage at once.
func TestMain(m *testing.M) {
	testenv.CollectLess()
	os.Exit(m.Run())
}
