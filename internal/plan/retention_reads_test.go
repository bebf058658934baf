package plan

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// SeenBefore are up to n people last seen before t, or never, as the
// store's index people_last_seen gives them (in no order).
func (m memStore) SeenBefore(t time.Time, n int) ([]string, error) {
	var out []string
	for _, id := range sortedPeople(m.st) {
		if p := m.st.People[id]; (p.LastSeen.IsZero() || p.LastSeen.Before(t)) && len(out) < n {
			out = append(out, id)
		}
	}
	return out, nil
}

// ageWorld makes some of st's people last seen long ago (one never, one
// exactly at the limit of retention r, who stays), or, with mode 0, sees
// everyone within r. Some of those who go first dropped out of every
// lead list, holding no enrichment (dropOut); with mode 2 only they go.
func ageWorld(rng *rand.Rand, st *state.State, r time.Duration, mode int) {
	for i, id := range sortedPeople(st) {
		p := st.People[id]
		recent := t0.Add(-time.Duration(rng.IntN(int(r/day))) * day)
		switch {
		case mode == 0:
			p.LastSeen = recent
		case i == 0:
			p.LastSeen = t0.Add(-r) // not more than r ago: kept
		case rng.IntN(4) == 0 && dropOut(st, p, rng.IntN(2) == 0):
			p.LastSeen = t0.Add(-time.Duration(200+rng.IntN(200)) * day)
		case mode == 2:
			p.LastSeen = recent
		case i == 1 && rng.IntN(2) == 0:
			p.LastSeen = time.Time{}
		case rng.IntN(3) == 0:
			p.LastSeen = t0.Add(-time.Duration(rng.IntN(400)) * day)
		}
	}
}

// dropOut takes p out of every lead list, as when the searches that
// found them no longer do, with their enrichment unless keep (no block
// enriched them): false, unchanged, for someone a profile read, an import
// or a track holds, or holding a copy.
func dropOut(st *state.State, p *state.Person, keep bool) bool {
	if len(p.Tracked) > 0 || p.Enrichment != nil && p.Enrichment.CopiedBy != "" {
		return false
	}
	for _, a := range p.FoundBy {
		if st.Searches[a] == nil {
			return false
		}
	}
	for _, im := range st.Imports {
		if slices.Contains(im.PersonIDs, p.ID) {
			return false
		}
	}
	for _, a := range p.FoundBy {
		sr := st.Searches[a]
		sr.LeadIDs = slices.DeleteFunc(slices.Clone(sr.LeadIDs), func(id string) bool { return id == p.ID })
	}
	p.FoundBy = nil
	if !keep {
		p.Enrichment = nil
	}
	return true
}

// TestRetentionReadsMakeTheSamePlan plans random worlds with leadsync
// { retention }: with the store's list of the people it removes
// (ExpiredOf), ReadsOf reads them whole and nobody else for them, and the
// plan over what it names is the whole state's, byte for byte. So is the
// plan of an enrich block the store answers (EnrichReadsOf), also when
// those to go hold enrichments or a record lists them: the plan takes
// them out of the store's counts (lessGone, goneIn).
func TestRetentionReadsMakeTheSamePlan(t *testing.T) {
	useTestMatch(t)
	defer func(n int) { maxExpiredRead = n }(maxExpiredRead)
	partial, removed, enriched, enrichGone, enrichHeld, wholeEnrich, kept := 0, 0, 0, 0, 0, 0, 0
	for seed := range 300 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x7e7e))
		// Past maxExpiredRead, the people to go are read in the kept form.
		maxExpiredRead = []int{200_000, 200_000, 1, 0}[seed/2%4]
		var f *fixture
		var o Options
		if seed%2 == 0 {
			f, o = enrichWorld(rng)
		} else {
			f, o = randomWorld(rng)
			if rng.IntN(2) == 0 {
				f.cfg.Enriches = nil
			}
		}
		o.Targets, o.Replace = nil, nil
		f.cfg.Settings.Retention = 180 * day
		ageWorld(rng, f.st, f.cfg.Settings.Retention, rng.IntN(3))
		want, wantDiags := Build(f.cfg, f.st, o)
		b := enrichBase(f.st)
		exp, err := ExpiredOf(f.cfg, o, b)
		if err != nil || exp == nil {
			t.Fatalf("seed %d: the store's list of the people retention removes: %v, %v", seed, exp, err)
		}
		o.Expired = exp
		if whole, _ := Build(f.cfg, f.st, o); planJSON(t, whole) != planJSON(t, want) {
			t.Fatalf("seed %d: the whole state's plan differs given the store's list", seed)
		}
		gone := want.Change(state.PeopleAddress) != nil
		r := ReadsOf(f.cfg, b.Records, o)
		if r.People {
			if planOfEnrich(t, seed, f, o).compared {
				enriched++
				if gone {
					enrichGone++
					enrichHeld += btoi(heldOrListed(f, o))
					kept += btoi(exp.Kept)
				}
			} else if !gone {
				wholeEnrich++
			}
			continue
		}
		st, err := r.Read(b)
		if err == nil {
			err = o.Expired.ReadKept(b, st) // the kept form, as run.Plan reads them
		}
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		got, diags := Build(f.cfg, st, o)
		if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
			t.Fatalf("seed %d (reads %+v): the plan over what ReadsOf names differs (-whole +read):\n%s", seed, r, d)
		}
		if wantDiags.Error() != diags.Error() {
			t.Fatalf("seed %d: %q, the whole state's %q", seed, diags.Error(), wantDiags.Error())
		}
		partial++
		if gone {
			removed++
			kept += btoi(exp.Kept)
		}
	}
	t.Logf("300 worlds: %d planned from what ReadsOf names (%d removing people), %d from what EnrichReadsOf names (%d removing people, %d of them someone enriched or listed); %d removing nobody needed everyone; %d removing people read in the kept form",
		partial, removed, enriched, enrichGone, enrichHeld, wholeEnrich, kept)
	if partial < 50 || removed < 30 || enriched < 100 || enrichGone < 75 || enrichHeld < 60 || kept < 50 {
		t.Fatalf("too few worlds planned in part: the test no longer tests retention's reads")
	}
}

// heldOrListed reports whether someone retention removes in the plan of
// f and o holds an enrichment or is listed by a record (FoundBy).
func heldOrListed(f *fixture, o Options) bool {
	for _, id := range o.Expired.IDs.All() {
		q := f.st.People[id]
		if q != nil && o.Now.Sub(q.LastSeen) > f.cfg.Settings.Retention && (q.Enrichment != nil || len(q.FoundBy) > 0) {
			return true
		}
	}
	return false
}

// TestExpiredOf: the store's list is asked only for a plan that removes
// people (retention set, no target, a time); a plan of more people to
// remove than maxExpiredRead reads them in the kept form, and of more
// than maxExpiredKept reads everyone (nil). An apply reads them whole.
func TestExpiredOf(t *testing.T) {
	f := newFixture()
	f.search("search.old", kw("CTO"))
	f.ran("search.old", t0.Add(-200*day), "a", "b", "c")
	b := storedBase(f.st)
	o := f.opts()
	if e, err := ExpiredOf(f.cfg, o, b); e != nil || err != nil {
		t.Fatalf("without retention: %v, %v", e, err)
	}
	f.cfg.Settings.Retention = 180 * day
	if e, _ := ExpiredOf(f.cfg, o, b); e == nil || !e.IDs.Packed() || !cmp.Equal(e.IDs.Strings(), []string{"a", "b", "c"}) {
		t.Fatalf("ExpiredOf = %+v, want a, b and c", e)
	}
	if r := ReadsOf(f.cfg, b.Records, o); !r.People {
		t.Errorf("ReadsOf without the store's list = %+v, want every person", r)
	}
	for _, x := range []Options{{Now: t0, Targets: []string{"search.old"}}, {}} {
		if e, _ := ExpiredOf(f.cfg, x, b); e != nil {
			t.Errorf("ExpiredOf(%+v) = %+v, want nil", x, e)
		}
	}
	defer func(n, k int) { maxExpiredRead, maxExpiredKept = n, k }(maxExpiredRead, maxExpiredKept)
	maxExpiredRead = 2
	e, _ := ExpiredOf(f.cfg, o, b)
	if e == nil || !e.Kept || !cmp.Equal(e.IDs.Strings(), []string{"a", "b", "c"}) {
		t.Errorf("3 people to remove of at most 2 read whole: ExpiredOf = %+v, want them kept", e)
	}
	if r := ReadsOf(f.cfg, b.Records, Options{Now: t0, Expired: e}); r.People || len(r.Persons) > 0 {
		t.Errorf("ReadsOf with the people kept = %+v, want none read whole", r)
	}
	maxExpiredKept = 2
	if e, _ := ExpiredOf(f.cfg, o, b); e != nil {
		t.Errorf("3 people to remove of at most 2 read: ExpiredOf = %+v, want nil", e)
	}
}

// TestExpiredLeavesTheListAlone: the people retention removes are sorted
// in a list of the plan's own, not in the list of strings it was given.
func TestExpiredLeavesTheListAlone(t *testing.T) {
	f := newFixture()
	f.search("search.old", kw("CTO"))
	f.ran("search.old", t0.Add(-200*day), "a", "b", "c")
	f.cfg.Settings.Retention = 180 * day
	o := f.opts()
	given := []string{"c", "a", "b"}
	o.Expired = &Expired{IDs: state.IDsOf(given), retention: f.cfg.Settings.Retention, now: o.Now}
	Build(f.cfg, f.st, o)
	if !slices.Equal(given, []string{"c", "a", "b"}) {
		t.Errorf("the list given is %q after the plan, want c, a, b as given", given)
	}
}
