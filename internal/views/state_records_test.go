package views

import (
	"testing"

	"github.com/leadsync/leadsync/internal/kind"
)

// TestEveryKindThatHoldsRecordsIsShown fails when a kind whose row in the
// table (internal/kind) says it holds records has no form in state show
// (state show would print the address and nothing of its record), or
// when a kind that holds none has one.
func TestEveryKindThatHoldsRecordsIsShown(t *testing.T) {
	for _, r := range kind.All() {
		sr, ok := shownRecords[r.Kind]
		if ok != r.HoldsRecords {
			t.Errorf("%s: holds records %v, shown by state show %v", r.Kind, r.HoldsRecords, ok)
		}
		if ok && (sr.human == nil || sr.json == nil) {
			t.Errorf("%s: state show lacks its human or its JSON form", r.Kind)
		}
	}
}
