package views

import (
	"bytes"
	"testing"

	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// TestRecoveredSaysWhatItRepaired: state recover says how many IDs naming
// nobody it repaired, a line a kind, nothing of a kind it did not repair,
// and the serial it wrote; a healthy state is said to be left unwritten.
// Only a state file's (a journal result) opens with its journal.
func TestRecoveredSaysWhatItRepaired(t *testing.T) {
	const healthy = "Nothing to repair: every ID names someone (the state was not written).\n"
	for _, c := range []struct {
		r       state.Repairs
		serial  uint64
		journal bool
		want    string
	}{
		{state.Repairs{}, 0, false, healthy},
		{state.Repairs{}, 0, true, "No journal to recover.\n" + healthy},
		{state.Repairs{LeadIDs: 3, Searches: 2, SplitIDs: 1, Splits: 1, ImportIDs: 2, Imports: 1, Profiles: 1}, 8, false,
			"Dropped 3 lead IDs from the lead lists of 2 searches: they named people the state does not hold (nothing is fetched again).\n" +
				"Dropped 1 lead ID from the nodes of 1 split run under way: they named people the state does not hold (nothing is fetched again).\n" +
				"Dropped 2 person IDs from 1 import: they named people the state does not hold.\n" +
				"Removed 1 profile read whose person the state does not hold: the next apply makes it again.\n" +
				"Wrote the state: serial 8.\n"},
		{state.Repairs{Profiles: 2}, 3, true, "No journal to recover.\n" +
			"Removed 2 profile reads whose person the state does not hold: the next apply makes them again.\n" +
			"Wrote the state: serial 3.\n"},
	} {
		res := &run.Recovered{Repaired: c.r, Serial: c.serial}
		if c.journal {
			res.Journal = &backend.RecoverResult{}
		}
		var b bytes.Buffer
		if err := NewStateChange(&b).Recovered(res, ""); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%+v:\n%s\nwant\n%s", c.r, b.String(), c.want)
		}
	}
}
