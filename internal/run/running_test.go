package run

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
)

// TestRunningOnSetsAsideTheApplysCallsInFlight: a state read while an
// apply holds the lock names the apply, and its enrichments in flight
// (noted since it took the lock) are no unknown outcomes; a pending note
// an earlier run left stays one. Without a holder, nothing is set aside.
func TestRunningOnSetsAsideTheApplysCallsInFlight(t *testing.T) {
	store := local.NewStore(filepath.Join(t.TempDir(), ".leadsync", "state.json"))
	store.Now = func() time.Time { return t0 }
	b := store.AsBackend()
	pending := func(at time.Time, id string) state.Event {
		return state.Event{At: at, Kind: state.EventEnrichPending, Address: "enrich.all", Enrich: &state.EnrichEvent{PersonID: id, Credits: 1}}
	}
	st := state.New()
	mustDo(t, st.Fold(pending(t0.Add(-time.Hour), "left-by-a-killed-run")))
	mustDo(t, st.Fold(pending(t0.Add(time.Second), "in-flight")))
	if r := RunningOn(b, st); r != nil || len(st.UnknownEnrichments) != 2 {
		t.Fatalf("no lock: running %+v, unknown %v", r, st.UnknownEnrichments)
	}
	l, err := b.Lock("apply")
	mustDo(t, err)
	defer l.Unlock()
	r := RunningOn(b, st)
	if r == nil || r.Holder.Operation != "apply" || r.InFlight != 1 || r.InFlightCredits != 1 {
		t.Fatalf("running %+v", r)
	}
	if len(st.UnknownEnrichments) != 1 || st.UnknownEnrichments["left-by-a-killed-run"] == nil || st.Usage.CreditsUnknown != 1 {
		t.Errorf("left %v (%d credits unknown): want the killed run's note only", st.UnknownEnrichments, st.Usage.CreditsUnknown)
	}
	w := r.Warning(t0.Add(3 * time.Minute))
	for _, want := range []string{"leadsync apply is running on this state", "since 2026-11-20 12:00:00 UTC (3m ago)", "1 enrichment in flight now", "no failure of an earlier run", "Plan again once it has ended"} {
		if !strings.Contains(w.Summary+" "+w.Detail, want) {
			t.Errorf("the warning does not say %q: %s: %s", want, w.Summary, w.Detail)
		}
	}
}
