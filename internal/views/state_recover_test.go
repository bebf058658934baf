package views

import (
	"bytes"
	"testing"

	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
)

// TestRecoveredSaysWhatItRepaired: state recover says how many IDs naming
// nobody it repaired, a line a kind, and nothing of a kind it did not
// repair; a healthy state is said to be complete.
func TestRecoveredSaysWhatItRepaired(t *testing.T) {
	for _, c := range []struct {
		r    state.Repairs
		want string
	}{
		{state.Repairs{}, "No journal to recover: the state is complete.\n"},
		{state.Repairs{LeadIDs: 3, Searches: 2, SplitIDs: 1, Splits: 1, ImportIDs: 2, Imports: 1, Profiles: 1}, "No journal to recover.\n" +
			"Dropped 3 lead IDs from the lead lists of 2 searches: they named people the state does not hold (nothing is fetched again).\n" +
			"Dropped 1 lead ID from the nodes of 1 split run under way: they named people the state does not hold (nothing is fetched again).\n" +
			"Dropped 2 person IDs from 1 import: they named people the state does not hold.\n" +
			"Removed 1 profile read whose person the state does not hold: the next apply makes it again.\n"},
		{state.Repairs{Profiles: 2}, "No journal to recover.\n" +
			"Removed 2 profile reads whose person the state does not hold: the next apply makes them again.\n"},
	} {
		var b bytes.Buffer
		if err := NewStateChange(&b).Recovered(&run.Recovered{Repaired: c.r}, ""); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%+v:\n%s\nwant\n%s", c.r, b.String(), c.want)
		}
	}
}
