package run

import (
	"path/filepath"
	"testing"

	"github.com/leadsync/leadsync/internal/state/local"
)

// TestReuseLookupNeedsAnotherWorkspace: with no other workspace there is
// nothing to reuse, and the plan is given no lookup (it would gather the
// keys of everyone it may enrich for nothing); once another workspace
// exists, it is.
func TestReuseLookupNeedsAnotherWorkspace(t *testing.T) {
	set := local.NewWorkspaces(filepath.Join(t.TempDir(), ".leadsync", "state.json"), nil)
	b, err := set.Open("default")
	if err != nil {
		t.Fatal(err)
	}
	if reuseLookup(b) != nil {
		t.Error("a lookup with no other workspace")
	}
	if err := set.CreateWorkspace("dach"); err != nil {
		t.Fatal(err)
	}
	if reuseLookup(b) == nil {
		t.Error("no lookup with workspace dach beside")
	}
}
