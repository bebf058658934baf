package views

import (
	"bytes"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
)

// TestSummaryPeopleNotes: the apply summary says who retention removed,
// what was suppressed and which search found nobody; counts are thousands
// separated like the plan's.
func TestSummaryPeopleNotes(t *testing.T) {
	var b bytes.Buffer
	writeSummary(&b, &engine.Summary{
		Expired: 3,
		Searches: []engine.SearchOutcome{
			{Address: "search.cto", Results: 5, Kept: 4, First: true, Suppressed: 1},
			{Address: "search.munich", Results: 0, Kept: 0, First: true},
			{Address: "search.de", Results: 2400, Kept: 300, Added: 1200, Removed: 1001, Suppressed: 1500},
		},
		Calls: 1500, CallsPlannedMax: 2000, Succeeded: 1500,
	}, ending{word: "Apply complete"})
	got := b.String()
	for _, want := range []string{
		"Removed 3 people no search has seen for the retention period.",
		"search.cto: 4 leads (of 5 returned), first run; 1 suppressed (erased with leadsync forget, dropped)",
		"search.munich: 0 leads, first run; returned no results: check the spelling",
		"local names (München",
		"search.de: 300 leads (of 2,400 returned), 1,200 new, 1,001 gone since the last run; " + export.OverCapNote + "; 1,500 suppressed",
		"1,500 calls made (at most 2,000 planned)", "1,500 succeeded",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "search.cto: 4 leads (of 5 returned), first run; returned no results") {
		t.Errorf("a search with results has the no-results note:\n%s", got)
	}
}

func TestPlanTextSuppressed(t *testing.T) {
	p := &plan.Plan{Suppressed: 2, Changes: []*plan.Change{{Address: "people", Kind: kind.People, Action: plan.Forget,
		Reason: plan.ReasonRetention, PersonIDs: []string{"a"}, Detail: "1 person not seen by any search for 180d (retention) leaves the state with their enrichments"}},
		Totals: plan.Totals{Forgets: 1, RateLimit: 1}}
	var b bytes.Buffer
	if err := PlanText(&b, p, false); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{
		"  - people  forget  1 person not seen by any search for 180d (retention)",
		"Plan: no calls, no credits; 1 forget.",
		"Suppressed: 2 people erased with leadsync forget (results naming them are dropped).",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
}
