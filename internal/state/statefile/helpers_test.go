package statefile

import (
	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

// The helpers of the state's tests, under the names these tests use.
var (
	must     = statetest.Must
	oddState = statetest.OddState
	bigState = statetest.BigState
	cmpState = statetest.CmpState
	cmpTime  = statetest.CmpTime
)

func cmpDiff(a, b *state.State) string { return cmp.Diff(a, b, cmpState) }
