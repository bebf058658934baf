package plan

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCountCrossesFreshPeople: a block at its limit whose bound needs its
// people to enrich not read counted (as in TestCountGivenUpNeedsEveryone),
// over 200 people it enriched, fresh, and 2 it did not. Whether the 2
// come first or last, the count walks on to them (202 asked, under
// maxCounted) and the walk decides the plan, the whole state's byte for
// byte. A count that gave up at the rate it finds people (tried in the
// thirteenth round) left it to the census, which can read everyone.
func TestCountCrossesFreshPeople(t *testing.T) {
	defer func(n, m int) { walkChunk, maxCounted = n, m }(walkChunk, maxCounted)
	walkChunk, maxCounted = 1, 400
	for _, tc := range []struct {
		name       string
		plainFirst bool
	}{
		{"the people to enrich last", false},
		{"the people to enrich first", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, kept, addr := rateWorld(tc.plainFirst)
			got, store, facts := planFromStore(t, f, kept, addr)
			if facts.NeedsEveryone() {
				t.Fatalf("the plan needs everyone; want the walk to decide it")
			}
			if store.asked > 202 {
				t.Fatalf("the count asked about %d people, want at most 202", store.asked)
			}
			o := Options{Now: t0, Offline: true, Targets: []string{addr}, FileExists: func(string) bool { return true }}
			want, _ := Build(f.cfg, f.st, o)
			if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
				t.Fatalf("the plan differs (-whole +read):\n%s", d)
			}
		})
	}
}

// rateWorld is TestCountCrossesFreshPeople's state: search.a's 202 leads,
// 200 of them enriched fresh by the block.
func rateWorld(plainFirst bool) (*fixture, map[string]int, string) {
	var fresh []string
	for i := range 200 {
		fresh = append(fresh, fmt.Sprintf("%d.f", i))
	}
	plain := []string{"0.p", "1.p"}
	if plainFirst {
		return countWorld(append(plain, fresh...), fresh)
	}
	return countWorld(append(fresh, plain...), fresh)
}

// countWorld is the state of the count's tests: the block enrich.e0 at
// its limit over search.a's leads (fresh of them enriched fresh by it)
// and search.r, which never ran: it runs. Its 5 stale enrichments are of
// people of search.b, so that its limit's bound is 5. It returns the
// lead lists to keep and the block's address.
func countWorld(leads, fresh []string) (*fixture, map[string]int, string) {
	f := newFixture()
	f.cfg.API.MaxCredits = 1 << 30
	a := f.search("search.a", kw("a"))
	f.ranRequest(a.Address, t0.Add(-day), a.Request, 0, leads...)
	f.search("search.r", kw("r"), maxResults(3)) // never ran: it runs
	other := f.search("search.b", kw("b"))
	var owned []string
	for i := range 5 {
		owned = append(owned, fmt.Sprintf("%d.q", i))
	}
	f.ranRequest(other.Address, t0.Add(-day), other.Request, 0, owned...)
	e := f.enrich("e0", []string{a.Address, "search.r"}, len(owned)+len(fresh), 30*day)
	for _, id := range owned {
		f.enriched(id, e.Address, t0.Add(-400*day)) // stale
	}
	for _, id := range fresh {
		f.enriched(id, e.Address, t0.Add(-day))
	}
	return f, map[string]int{a.Address: len(leads), other.Address: len(owned)}, e.Address
}
