package plan

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCountCrossesFreshPeople: a block at its limit whose bound needs its
// people to enrich not read counted (as in TestCountGivenUpNeedsEveryone),
// over 200 people it enriched, fresh, and 2 it did not, among 407
// people. Whether the 2 come first or last, the count walks on to them
// (202 asked, under half of the people: readsMost) and the walk decides
// the plan, the whole state's byte for byte. A count that gave up at the rate it finds people (tried in the
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
// 200 of them enriched fresh by the block, and 200 people of search.o,
// which no block reads.
func rateWorld(plainFirst bool) (*fixture, map[string]int, string) {
	return crossWorld(200, 200, plainFirst)
}

// crossWorld is countWorld over search.a's fresh+2 leads, fresh of them
// enriched fresh by the block (the 2 others first or last), and others
// people of search.o, which no block reads.
func crossWorld(fresh, others int, plainFirst bool) (*fixture, map[string]int, string) {
	var enriched, more []string
	for i := range fresh {
		enriched = append(enriched, fmt.Sprintf("%d.f", i))
	}
	for i := range others {
		more = append(more, fmt.Sprintf("%d.o", i))
	}
	leads := append(slices.Clone(enriched), "0.p", "1.p")
	if plainFirst {
		leads = append([]string{"0.p", "1.p"}, enriched...)
	}
	f, kept, addr := countWorld(leads, enriched)
	o := f.search("search.o", kw("o"))
	f.ranRequest(o.Address, t0.Add(-day), o.Request, 0, more...)
	kept[o.Address] = len(more)
	return f, kept, addr
}

// TestCountAsksAtMostHalfTheState: the count past the places of a block
// at its limit (crossWorld, its 2 people to enrich after 250 it enriched
// fresh) asks about 252 people. Among 517 people that is less than half
// (readsMost): the walk decides the plan, the whole state's byte for
// byte. Among 497 it is most of them: the count gives up and the plan is
// made from the census (Recount). Until the fifteenth
// round the count gave up past 400,000 people asked, whatever the
// state's size.
func TestCountAsksAtMostHalfTheState(t *testing.T) {
	defer func(n int) { walkChunk = n }(walkChunk)
	walkChunk = 1
	for _, tc := range []struct {
		others int
		census bool
	}{{260, false}, {240, true}} {
		f, kept, addr := crossWorld(250, tc.others, false)
		_, store, facts := planFromStore(t, f, kept, addr)
		if census := facts.NeedsEveryone() && facts.Recount() != nil; census != tc.census {
			t.Fatalf("%d people: the count asked about %d, census %v, want %v", len(f.st.People), store.asked, census, tc.census)
		}
		if !tc.census && store.asked < 252 {
			t.Fatalf("%d people: the count asked about %d, want 252", len(f.st.People), store.asked)
		}
	}
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
