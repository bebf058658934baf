package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestRefreshOnGivesACountedBlockAPlace plans the block of placesLeft
// with a second block at its limit of 1 over the first search's 300
// people, with a where (planned from the census at once: 199 people to
// enrich pass it), and a third, with refresh_on, over a search keeping
// only the person the second block enriched, whose company changed
// since. The third block enriches that person again, which gives the
// second block its place back: the whole state's plan has it enrich
// 0008.p. Its census must read its people to enrich whole (countOnly is
// false with refresh_on): only counted, the plan would say "limit 1
// reached" and one call fewer than the whole state's.
func TestRefreshOnGivesACountedBlockAPlace(t *testing.T) {
	f, kept, _ := placesLeft(placesBlock, day)
	capped := f.enrich("cap", []string{`search.a["0"]`}, 1, 0)
	defer func(m func(*config.Config, *config.Enrich, person.Lead) (bool, error)) { match = m }(match)
	useNumberMatch(false)
	whereCompany(capped)
	f.enriched("0299.p", capped.Address, t0.Add(-day))
	s := f.search(`search.b`, kw("b", "city", "b"))
	f.ranRequest(s.Address, t0.Add(-day), s.Request, 0, "0299.p")
	kept[s.Address] = 1
	fresh := f.enrich("fresh", []string{s.Address}, 5, 0)
	fresh.RefreshOn = []string{state.DriftCompany}
	p := f.st.People["0299.p"]
	p.History = append(p.History, state.Drift{Field: state.DriftCompany, Before: "Old Co", After: "New Co", At: t0.Add(-day / 2), By: s.Address, Call: "search"})

	o := Options{Now: t0, Offline: true, FileExists: func(string) bool { return true }}
	want, _ := Build(f.cfg, f.st, o)
	if c := changeOf(want, capped.Address); c == nil || c.Calls != 1 {
		t.Fatalf("the whole state's plan: %+v; want 1 call of %s (a place given back)", c, capped.Address)
	}
	st, facts, _ := readFromStore(t, f, kept, o)
	po := o
	po.Enrich = facts
	got, _ := Build(f.cfg, st, po)
	if again := facts.Recount(); again != nil {
		facts, po.Enrich = again, again
		got, _ = Build(f.cfg, st, po)
	}
	if facts.Err() != nil {
		t.Fatal(facts.Err())
	}
	if facts.NeedsEveryone() {
		t.Fatalf("the plan needs everyone")
	}
	if !facts.censusOf[capped.Address] {
		t.Fatalf("planned from the census: %v, want %s among them", facts.censusOf, capped.Address)
	}
	if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
		t.Fatalf("the plan differs (-whole +read):\n%s", d)
	}
}

// changeOf is the change of p at addr, or nil.
func changeOf(p *Plan, addr string) *Change {
	for _, c := range p.Changes {
		if c.Address == addr {
			return c
		}
	}
	return nil
}
