package exec_test

import (
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state"
)

// TestEnrichAnswerForAnotherPersonIsNotMerged: an enrich answer whose
// networkId is not the person's is a failure of that call; nothing of it
// reaches the person asked for (name, e-mail), and the others are enriched.
func TestEnrichAnswerForAnotherPersonIsNotMerged(t *testing.T) {
	cfg := load(t, basic)
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	svc.otherPerson = map[string]string{"alpha_0": "777.bad"}
	j := &memJournal{}
	sum := run(t, cfg, st, p, svc, j, nil)

	if len(sum.Failures) != 1 || !api.IsKind(sum.Failures[0].Err, api.KindMismatch) {
		t.Fatalf("failures = %v, want one answer for another person", sum.Failures)
	}
	for _, e := range j.events {
		if e.Kind == state.EventEnrich && e.Enrich.Result.PageName == "alpha_0" {
			t.Errorf("the answer about someone else was journaled for alpha_0: %+v", e.Enrich.Result)
		}
	}
	for _, person := range st.People {
		if person.Lead.PageName == "alpha_0" && person.Enrichment != nil {
			t.Errorf("alpha_0 got an enrichment from an answer about someone else: %+v", person.Enrichment)
		}
	}
	if sum.Enriched != 10 {
		t.Errorf("enriched %d, want the 10 others", sum.Enriched)
	}
}
