package plan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// refreshOnWorld gives some worlds refresh_on (the block's, or another
// block's) and people whose company or title changed, before or after
// their enrichment.
func refreshOnWorld(rng *rand.Rand, f *fixture) {
	if rng.IntN(3) > 0 {
		return
	}
	fields := [][]string{{state.DriftCompany}, {state.DriftTitle, state.DriftCompany}}[rng.IntN(2)]
	blocks := f.cfg.Enriches
	blocks[rng.IntN(len(blocks))].RefreshOn = fields
	if rng.IntN(3) == 0 {
		blocks[0].RefreshOn = fields
	}
	for _, id := range sortedPeople(f.st) {
		p := f.st.People[id]
		if rng.IntN(3) > 0 {
			continue
		}
		at := t0.Add(-time.Duration(rng.IntN(500)) * day)
		p.History = append(p.History, state.Drift{Field: fields[rng.IntN(len(fields))], Before: "Co " + id, After: "New Co", At: at, By: "search.a", Call: "search"})
	}
}

func (m enrichMemStore) Changed() ([]string, error) { return state.NewBase(m.st).Changed() }

func (m enrichMemStore) Enriched(addr string) ([]string, error) {
	return state.NewBase(m.st).Enriched(addr)
}

// TestRefreshOnWalkCountsTheEnriched plans a block with refresh_on and 5
// places left over 3,000 people, all but 5 enriched by it a day ago, and
// six searches that run among its sources (up to 1,800 people): a search
// may show any enriched member changed, so the bound counts them (up to
// what the running searches bring) with the people to enrich: 3,605, past
// the limit's bound of 3,000. The walk counts the enriched
// members not read from the census of the enrichments (countUnreadOn),
// so the plan is the whole state's without reading them or the census
// reading anyone whole, nor listing the block's enrichments.
func TestRefreshOnWalkCountsTheEnriched(t *testing.T) {
	f := newFixture()
	f.cfg.API.MaxCredits = 1 << 30
	var refs, ids []string
	kept := map[string]int{}
	for k := range 10 {
		s := f.search(fmt.Sprintf(`search.a["%d"]`, k), kw("a", "city", fmt.Sprint(k)))
		var leads []string
		for i := range 300 {
			leads = append(leads, fmt.Sprintf("%04d.p", 300*k+i))
		}
		f.ranRequest(s.Address, t0.Add(-day), s.Request, 0, leads...)
		refs, ids, kept[s.Address] = append(refs, s.Address), append(ids, leads...), len(leads)
	}
	from := slices.Clone(refs)
	for k := range 6 { // they run: up to 300 people each
		from = append(from, f.search(fmt.Sprintf(`search.run["%d"]`, k), kw("run", "city", fmt.Sprint(k))).Address)
	}
	e := f.enrich("e0", from, 3000, 30*day)
	e.RefreshOn = []string{state.DriftCompany}
	for i, id := range ids {
		if i%600 != 7 {
			f.enriched(id, e.Address, t0.Add(-day))
		}
	}
	got, store, facts := planFromStore(t, f, kept, e.Address)
	if facts.NeedsEveryone() || facts.census {
		t.Fatalf("the plan needs everyone (%v) or the census (%v)", facts.NeedsEveryone(), facts.census)
	}
	c := got.Changes[len(got.Changes)-1]
	if c.Address != e.Address || c.Calls != 5 || c.CallsMax != 3000 || store.read != 5 {
		t.Fatalf("%s: %d calls, at most %d, %d people read whole; want 5, 3,000 and 5", c.Address, c.Calls, c.CallsMax, store.read)
	}
	// The 2,995 enriched members are more than the 1,800 the running
	// searches bring: the block's former people change nothing.
	if store.listed != 0 {
		t.Fatalf("the block's enrichments listed %d times, want none", store.listed)
	}
}
