package backendtest

import (
	"testing"

	"github.com/leadsync/leadsync/internal/state"
)

// testPartialRemovalOfSomeoneUnheld: a retention removal listing
// someone the store does not hold (m999) removes the others it lists
// from the store alike, folded into the state read whole or in part: the
// partial state names only those held in Changes.Removed (removal.go's
// flush), and the store deletes their rows.
func testPartialRemovalOfSomeoneUnheld(t *testing.T, k Kind) {
	open, wholeOpen := k.New(t), k.New(t)
	evs := manyPeopleEvents(12, 0)
	setup := evs[:len(evs)-1]
	Apply(t, open("", Alice), setup)
	Apply(t, wholeOpen("", Alice), setup)
	ids := []string{"m001", "m004", "m999"}
	foldEachAlike(t, open, wholeOpen, []state.Event{{At: At(4), Kind: state.EventForgetPeople, Address: state.PeopleAddress,
		People: &state.ForgetPeopleEvent{Reason: state.ForgetRetention, PersonIDs: ids}}})
	got, err := loadOnce(open("", Alice))
	must(t, err, "load")
	for _, id := range ids {
		if got.People[id] != nil {
			t.Errorf("%s is held after the removal that lists them", id)
		}
	}
	if len(got.People) != 10 {
		t.Errorf("the store holds %d people after removing 2 of 12, want 10", len(got.People))
	}
}
