package engine_test

import (
	"errors"
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

	var ae *api.Error
	if len(sum.Failures) != 1 || !errors.As(sum.Failures[0].Err, &ae) || ae.Kind != api.KindMismatch {
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

// TestCreditsCountedAsCharged: the summary's credits are the enrichments
// that succeeded; a 500 charged nothing; an answer that was lost or
// unusable may have been charged: counted apart and recorded in state, so
// that the block's limit counts it and the next plan shows it.
func TestCreditsCountedAsCharged(t *testing.T) {
	cfg := load(t, basic)
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	svc.fail["enrich:alpha_0"] = &api.Error{Op: api.OpEnrich, Gen: api.Gen1, Kind: api.KindDecode, Status: 200, Message: "an empty object ({})"}
	svc.fail["enrich:beta_0"] = &api.Error{Op: api.OpEnrich, Gen: api.Gen1, Kind: api.KindServer, Status: 500, Message: "internal server error"}
	j := &memJournal{}
	sum := run(t, cfg, st, p, svc, j, nil)

	if sum.Credits != 9 || sum.CreditsUnknown != 1 {
		t.Errorf("credits %d charged, %d unknown; want 9 (11 enrichments, 2 failed) and 1", sum.Credits, sum.CreditsUnknown)
	}
	var unknown []string
	for _, e := range j.events {
		if e.Kind == state.EventEnrichUnknown {
			unknown = append(unknown, e.Enrich.PersonID)
		}
	}
	alpha0 := ""
	for id, person := range st.People {
		if person.Lead.PageName == "alpha_0" {
			alpha0 = id
		}
	}
	if len(unknown) != 1 || unknown[0] != alpha0 {
		t.Errorf("journaled unknown outcomes %v, want alpha_0 (%s)", unknown, alpha0)
	}
	if u := st.UnknownEnrichments[alpha0]; u == nil || u.By != "enrich.all" || len(st.UnknownEnrichments) != 1 {
		t.Errorf("state's unknown enrichment of alpha_0 = %+v (of %d; the 500 charged nothing)", u, len(st.UnknownEnrichments))
	}
	if st.Usage.CreditsSpent != 9 || st.Usage.CreditsUnknown != 1 {
		t.Errorf("state credits %d spent, %d unknown; want 9 and 1", st.Usage.CreditsSpent, st.Usage.CreditsUnknown)
	}
}
