package pg

import (
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
)

// A run that loaded the state before a push --force replaced it does not
// write its rows into the new one.
func TestCommitRefusesReplacedState(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	schema := pooledSchema(t, cs)
	b := newPG(t, cs, schema, "", alice)
	apply(t, b, events()[:2])
	s, err := b.Load()
	mustNoErr(t, err, "load")
	mustNoErr(t, newPG(t, cs, schema, "", bob).Push(state.New(), true), "push --force")
	mustNoErr(t, s.Fold(events()[2]), "apply")
	if err := b.Commit(s); err == nil || !strings.Contains(err.Error(), "another state") {
		t.Fatalf("commit over a replaced state: %v", err)
	}
}
