package plan

import (
	"fmt"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
)

// TestDistinctIDsKeepNoSetOfIDs: counting 200,000 IDs met twice each
// (two blocks over the same searches) makes the list of hashes, its
// sorting buffer and little else; maps of the hashes met twice and of
// their IDs grew by hundreds of allocations.
func TestDistinctIDsKeepNoSetOfIDs(t *testing.T) {
	var ids []string
	for i := range 100000 {
		ids = append(ids, fmt.Sprintf("1%07d.%05d", i, i%7))
	}
	sources := []source{{ids: state.PackIDs(ids)}, {}, {ids: state.IDsOf(ids)}, {ids: state.PackIDs([]string{"x"})}}
	if got := distinctIDs(sources); got != 100001 {
		t.Fatalf("distinctIDs = %d, want 100001", got)
	}
	if n := testing.AllocsPerRun(3, func() { distinctIDs(sources) }); n > 8 {
		t.Errorf("distinctIDs of 200,001 IDs: %v allocations, want 8 at most", n)
	}
}
