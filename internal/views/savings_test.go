package views

import (
	"testing"

	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/plan"
)

// TestNotSpentUpTo: "up to" only before a bound, the credits of people
// excluded (one might have been beyond a limit anyway); e-mails imported
// and enrichments reused are exact.
func TestNotSpentUpTo(t *testing.T) {
	for _, tt := range []struct {
		n    engine.NotSpent
		want string
	}{
		{engine.NotSpent{Reused: 8, CreditsPerEnrich: 1}, "Not spent: 8 credits (reused 8)."},
		{engine.NotSpent{Imported: 1, CreditsPerEnrich: 1}, "Not spent: 1 credit (imported 1)."},
		{engine.NotSpent{Imported: 3, Reused: 2, CreditsPerEnrich: 2}, "Not spent: 10 credits (imported 6, reused 4)."},
		{engine.NotSpent{Excluded: 8, Imported: 3, CreditsPerEnrich: 1}, "Not spent: up to 11 credits (excluded 8, imported 3)."},
		{engine.NotSpent{CreditsPerEnrich: 1}, ""},
	} {
		if got := notSpentLine(tt.n); got != tt.want {
			t.Errorf("notSpentLine(%+v) = %q, want %q", tt.n, got, tt.want)
		}
	}
	for _, tt := range []struct {
		sv   plan.Savings
		want string
	}{
		{plan.Savings{CreditsMax: 8, Reused: plan.ReusedSaving{People: 8, Credits: 8}}, "Not spent: 8 credits (reused 8)."},
		{plan.Savings{CreditsMax: 11, Excluded: plan.ExcludedSaving{People: 8, CreditsMax: 8}, Imported: plan.ImportedSaving{People: 3, Credits: 3}},
			"Not spent: up to 11 credits (excluded 8, imported 3)."},
	} {
		lines := savingsLines(&plan.Plan{Savings: tt.sv})
		if len(lines) == 0 || lines[0] != tt.want {
			t.Errorf("savings %+v: %q, want first %q", tt.sv, lines, tt.want)
		}
	}
}
