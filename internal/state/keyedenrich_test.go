package state

import (
	"slices"
	"testing"
	"time"
)

// TestKeyedEnrichmentsOfAStateReadWhole: of a state read whole (no store
// reading keys and enrichments alone), KeyedEnrichments gives the
// enriched people of ids, read whole, a page at a time, and none other.
func TestKeyedEnrichmentsOfAStateReadWhole(t *testing.T) {
	s := New()
	for _, id := range []string{"n1", "n2", "n3", "n4"} {
		s.People[id] = &Person{ID: id}
	}
	for _, id := range []string{"n1", "n3", "n4"} {
		s.People[id].Enrichment = &Enrichment{EnrichedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}
	}
	b := NewBase(s)
	b.SetPage(2)
	var got []string
	pages := 0
	err := b.KeyedEnrichments([]string{"n1", "n2", "n3", "n9"}, func(ps []*Person) error {
		pages++
		for _, p := range ps {
			if p != s.People[p.ID] {
				t.Errorf("%s is not the person read whole", p.ID)
			}
			got = append(got, p.ID)
		}
		return nil
	})
	slices.Sort(got)
	if err != nil || pages != 2 || !slices.Equal(got, []string{"n1", "n3"}) {
		t.Errorf("got %v in %d pages (%v); want n1 and n3 in 2", got, pages, err)
	}
}
