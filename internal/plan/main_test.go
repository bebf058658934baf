package plan

import (
	"os"
	"testing"

	"github.com/leadsync/leadsync/internal/testenv"
)

// TestMain lets the collector run less often (testenv.CollectLess): the
// tests here make many small worlds, each garbage at once. A block's
// people come in chunks of 8 (ownedChunk), so that the worlds' blocks
// cross chunks rather than zero 4,096 places each.
func TestMain(m *testing.M) {
	testenv.CollectLess()
	ownedChunk = 8
	os.Exit(m.Run())
}
