package plan

import (
	"slices"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
)

// keyCalls is a Base that counts how the people held are found: passes
// over every person's lookup keys (EachLead) and questions by key (Keyed).
type keyCalls struct {
	*state.Base
	each, keyed int
}

func (s *keyCalls) EachLead(cols state.PersonColumns, fn func(*state.Person) error) error {
	s.each++
	return s.Base.EachLead(cols, fn)
}

func (s *keyCalls) Keyed(keys []string) ([]string, bool, error) {
	s.keyed++
	return s.Base.Keyed(keys)
}

// TestPastMaxReuseKeysThePeopleHeldAreFoundInOnePass: past maxReuseKeys
// keys, heldPeople finds the people held in one pass over every person's
// lookup keys (scanKeyed), asking the store about no key; at it, it asks
// the store by key (keyedPeople) and makes no pass. Both find the same
// people.
func TestPastMaxReuseKeysThePeopleHeldAreFoundInOnePass(t *testing.T) {
	defer keepReadKnobs()()
	tried := 0
	for seed := 0; seed < 200 && tried < 20; seed++ {
		f, _, _ := othersWorld(seed)
		var keys []string
		for i, id := range sortedPeople(f.st) {
			if i%3 == 0 {
				keys = append(keys, state.LookupKeys(f.st.People[id])...)
			}
		}
		if len(keys) < 2 {
			continue
		}
		tried++
		var found [2][]string
		for i, most := range []int{len(keys) - 1, len(keys)} {
			maxReuseKeys = most
			s := &keyCalls{Base: enrichBase(f.st)}
			ids, ok, err := heldPeople(s, slices.Clone(keys))
			if err != nil || !ok {
				t.Fatalf("seed %d: heldPeople: %v, %v", seed, ok, err)
			}
			if want := [2]int{1 - i, i}; s.each != want[0] || s.keyed != want[1] {
				t.Fatalf("seed %d: %d keys, maxReuseKeys %d: %d passes and %d questions by key, want %v", seed, len(keys), most, s.each, s.keyed, want)
			}
			found[i] = ids
		}
		if !slices.Equal(found[0], found[1]) {
			t.Fatalf("seed %d: one pass found %v, the questions by key %v", seed, found[0], found[1])
		}
	}
	if tried < 20 {
		t.Fatalf("%d worlds with people: the test no longer tests heldPeople", tried)
	}
}
