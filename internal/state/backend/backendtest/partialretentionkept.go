package backendtest

import (
	"testing"
	"time"

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
		want[id] = keptIn(p)
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

// checkKeptExpired: one pass of the store's index (Base.KeptExpired) at
// retention r and now gives the kept form of the people ExpiredIDs
// listed, ids, as st holds them, each once.
func checkKeptExpired(t *testing.T, base *state.Base, st *state.State, r time.Duration, now time.Time, ids []string) {
	t.Helper()
	want := map[string]state.KeptPerson{}
	for _, id := range ids {
		want[id] = keptIn(st.People[id])
	}
	got := map[string]state.KeptPerson{}
	twice := 0
	ok, err := base.KeptExpired(r, now, func(k state.KeptPerson) {
		if _, met := got[k.ID]; met {
			twice++
		}
		got[k.ID] = k
	})
	must(t, err, "KeptExpired")
	if !ok {
		t.Fatal("the store gives no kept form of people (state.KeptLister)")
	}
	if d := cmp.Diff(want, got); d != "" || twice > 0 {
		t.Errorf("retention %s: the kept form of the people to go differs from ExpiredIDs' (-listed +kept, %d met twice):\n%s", r, twice, d)
	}
}

// keptIn is the kept form of p, as the state loaded holds it.
func keptIn(p *state.Person) state.KeptPerson {
	k := state.KeptPerson{ID: p.ID, LastSeen: p.LastSeen}
	if e := p.Enrichment; e != nil {
		k.Enriched, k.By, k.CopiedBy, k.EnrichedAt = true, e.By, e.CopiedBy, e.EnrichedAt
	}
	return k
}
