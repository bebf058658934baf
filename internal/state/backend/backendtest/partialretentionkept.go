package backendtest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// checkKept: the store gives the kept form of people (Base.KeptPeople,
// read by plan.Expired.ReadKept without decoding anyone whole) as st,
// the state loaded, holds them: the ID, when last seen, and the
// enrichment's block, copy and time; an unknown ID is left out.
func checkKept(t *testing.T, base *state.Base, st *state.State) {
	t.Helper()
	ids := []string{"nobody"}
	want := map[string]state.KeptPerson{}
	for id, p := range st.People {
		ids = append(ids, id)
		k := state.KeptPerson{ID: id, LastSeen: p.LastSeen}
		if e := p.Enrichment; e != nil {
			k.Enriched, k.By, k.CopiedBy, k.EnrichedAt = true, e.By, e.CopiedBy, e.EnrichedAt
		}
		want[id] = k
	}
	got := map[string]state.KeptPerson{}
	ok, err := base.KeptPeople(ids, func(k state.KeptPerson) { got[k.ID] = k })
	must(t, err, "KeptPeople")
	if !ok {
		t.Fatal("the store gives no kept form of people (state.KeptLister)")
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("the kept form of the people differs from the state loaded (-loaded +kept):\n%s", d)
	}
	if len(want) == 0 {
		t.Error("nobody in the state: the test checks no kept form")
	}
}
