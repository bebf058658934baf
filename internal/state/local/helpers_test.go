package local

import (
	"bytes"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statefile"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

// The helpers of the state's tests, under the names these tests use.
var (
	t0          = statetest.T0
	day         = statetest.Day
	lead        = statetest.Lead
	searchEv    = statetest.SearchEv
	enrichEv    = statetest.EnrichEv
	eraseEv     = statetest.EraseEv
	retentionEv = statetest.RetentionEv
	unknownEv   = statetest.UnknownEv
	demoEvents  = statetest.DemoEvents
	must        = statetest.Must
	cmpState    = statetest.CmpState
	cmpTime     = statetest.CmpTime
)

// encode is s as a state file.
func encode(t testing.TB, s *state.State) []byte {
	t.Helper()
	var buf bytes.Buffer
	must(t, statefile.Encode(&buf, s))
	return buf.Bytes()
}
