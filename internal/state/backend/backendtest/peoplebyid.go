package backendtest

import (
	"testing"

	"github.com/leadsync/leadsync/internal/state"
)

// testPeopleByID: people read by ID (Base.People, as a plan reads those
// it will enrich) are those of the state read whole, histories included,
// whether a read asks for one person, two neighbours or everyone (SQLite
// asks first whether any change lies between the first and the last ID
// asked).
func testPeopleByID(t *testing.T, k Kind) {
	whole, _, got := basesOfEvents(t, k)
	defer got.Close()
	all := ids(t, got)
	pages := [][]string{all}
	for i, id := range all {
		pages = append(pages, []string{id})
		if i > 0 {
			pages = append(pages, all[i-1:i+1])
		}
	}
	histories := 0
	for _, page := range pages {
		read, err := got.People(page)
		must(t, err, "people %q", page)
		want := &state.State{People: map[string]*state.Person{}}
		for _, id := range page {
			want.People[id] = whole.People[id]
			if len(page) == len(all) && len(whole.People[id].History) > 0 {
				histories++
			}
		}
		same(t, want, &state.State{People: read}, "the people read by ID differ from the state read whole")
	}
	if histories == 0 {
		t.Fatal("the fixture holds no history to read by ID")
	}
}
