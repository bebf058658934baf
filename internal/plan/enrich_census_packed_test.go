package plan

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/state"
)

// TestCensusSketchesArePacked plans the block of placesLeft with its
// 1,000 enrichments stale (40 days old, a refresh of 30): read in
// sketch, they are packed (EnrichFacts.packed), not held in State.People
// as Persons, and the block's people to enrich hold them by index
// (member), no Person each. The plan is the whole state's, byte for
// byte: the 1,000 refreshes and the 5 places left.
func TestCensusSketchesArePacked(t *testing.T) {
	f, kept, e := placesLeft(placesBlock, 40*day)
	o := Options{Now: t0, Offline: true, FileExists: func(string) bool { return true }}
	want, _ := Build(f.cfg, f.st, o)
	if c := changeOf(want, e.Address); c == nil || c.Calls != 1005 {
		t.Fatalf("the whole state's plan: %+v; want 1,005 calls", c)
	}
	st, facts, _ := readFromStore(t, f, kept, o)
	if n := facts.packed.Len(); n != 1000 || st.People["0000.p"] != nil {
		t.Fatalf("%d sketches packed, 0000.p in State.People: %v; want the 1,000 packed alone", n, st.People["0000.p"] != nil)
	}
	v := newEnv(f.cfg, st, t0)
	v.facts = facts
	bp, err := v.collect(e, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	sketched := 0
	for _, m := range bp.todo {
		if m.k >= 0 {
			sketched++
			if m.p != nil {
				t.Fatalf("%s, to enrich, is held as a Person", m.p.ID)
			}
		}
	}
	if sketched != 1000 {
		t.Fatalf("%d sketches to enrich; want 1,000", sketched)
	}
	po := o
	po.Enrich = facts
	got, _ := Build(f.cfg, st, po)
	if facts.NeedsEveryone() || facts.Err() != nil {
		t.Fatalf("the plan needs everyone (%v)", facts.Err())
	}
	if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
		t.Fatalf("the plan differs (-whole +read):\n%s", d)
	}
}

// TestPackedSketchesBesideExcludeBlocks plans the worlds of packedWorlds
// whose exclude blocks name, by every kind, some people holding an
// enrichment (excludeEnriched), twice: over the whole state, and over
// what EnrichReadsOf names, the people read in sketch packed
// (packSketches). Unless Build says it needs everyone, the plans must be
// the same, byte for byte: a person a block names is read whole
// (excludedReads) and taken out of the packed sketches (keepUnread),
// whose Person lacks the values the block names.
func TestPackedSketchesBesideExcludeBlocks(t *testing.T) {
	named, compared := 0, 0
	packed := packedWorlds(t, 800, 0x9ac5, func(rng *rand.Rand, w *packedWorld) {
		excludeEnriched(rng, w.f)
	}, func(w packedWorld) {
		n := packedExcluded(w.f, w.packed)
		if r := planOfEnrich(t, w.seed, w.f, w.o); n > 0 && r.compared {
			named++
			compared += btoi(r.excluded)
		}
	})
	t.Logf("%d worlds packed their sketches beside exclude blocks; in %d planned in part, a block named people packed (%d of them excluded people)", packed, named, compared)
	if packed < 200 || named < 75 || compared < 75 {
		t.Fatalf("%d worlds packed, %d naming people packed, %d excluding people: the test no longer tests exclude blocks beside packed sketches", packed, named, compared)
	}
}

// packedWorld is a world of packedWorlds: f planned with o, and the
// sketches EnrichReadsOf packed for it (before Fill).
type packedWorld struct {
	seed   int
	f      *fixture
	o      Options
	packed *state.CensusSketches
}

// packedWorlds makes that many (worlds) random worlds of one enrich block or several
// (enrichWorld, manyWorld), each given a feature by with, and calls each
// with those whose plan EnrichReadsOf packs sketches for; it returns how
// many those are.
func packedWorlds(t *testing.T, worlds int, stream uint64, with func(*rand.Rand, *packedWorld), each func(packedWorld)) int {
	t.Helper()
	defer keepReadKnobs()()
	packed := 0
	for seed := range worlds {
		rng := rand.New(rand.NewPCG(uint64(seed), stream))
		setReadKnobs(rng, seed)
		w := packedWorld{seed: seed}
		w.f, w.o = enrichWorld(rng)
		if seed%2 == 1 {
			w.f, w.o, _ = manyWorld(rng)
		}
		with(rng, &w)
		b := enrichBase(w.f.st)
		_, facts, ok, err := EnrichReadsOf(w.f.cfg, b.Records, w.o, b)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if ok && facts.packed.Len() > 0 {
			packed++
			w.packed = facts.packed
			each(w)
		}
	}
	return packed
}

// excludeEnriched gives some worlds' people holding an enrichment
// exclude blocks naming them, each by one kind: company, page name,
// network ID (the sketch's is its ID), e-mail, or the
// company domain, a colleague's when the enrichment gives none.
func excludeEnriched(rng *rand.Rand, f *fixture) {
	var enriched []*state.Person
	for _, id := range sortedPeople(f.st) {
		if p := f.st.People[id]; p.Enrichment != nil {
			enriched = append(enriched, p)
		}
	}
	if len(enriched) == 0 {
		return
	}
	for i := range 1 + rng.IntN(3) {
		p := enriched[rng.IntN(len(enriched))]
		name := fmt.Sprintf("named%d", i)
		switch rng.IntN(5) {
		case 0:
			p.Lead.Company = "Named " + name
			f.exclude(name, listfile.Company, p.Lead.Company)
		case 1:
			if p.Lead.PageName != "" {
				f.exclude(name, listfile.PageName, p.Lead.PageName)
			}
		case 2:
			p.Lead.NetworkID = fmt.Sprintf("9%d.abc", i)
			f.exclude(name, listfile.NetworkID, p.Lead.NetworkID)
		case 3:
			p.Enrichment.Result.Email = name + "@named.example"
			f.exclude(name, listfile.Email, p.Enrichment.Result.Email)
		default:
			p.Lead.Company = "Named " + name
			colleague := enriched[rng.IntN(len(enriched))]
			colleague.Lead.Company = p.Lead.Company
			colleague.Enrichment.Result.CompanyDomain = name + ".example"
			f.exclude(name, listfile.Domain, colleague.Enrichment.Result.CompanyDomain)
		}
	}
}

// packedExcluded counts the people of t an exclude block of f names over
// the whole state.
func packedExcluded(f *fixture, t *state.CensusSketches) int {
	v := newEnv(f.cfg, f.st, t0)
	n := 0
	for i := range t.Len() {
		if v.excludedBy(f.st.People[t.ID(i)]) != nil {
			n++
		}
	}
	return n
}

// TestPackedSketchesBesideRetention plans the worlds of packedWorlds
// with leadsync { retention } removing people, some holding a stale
// enrichment (ageWorld), those to go read whole or, in half of the
// worlds, in the kept form (maxExpiredRead 1), twice: over the whole
// state, and over what EnrichReadsOf names, the people read in sketch
// packed. Unless Build says it needs everyone, the plans must be the
// same, byte for byte: a sketch of someone who goes is known (env.known),
// and the walks and censuses skip it (skipGone).
func TestPackedSketchesBesideRetention(t *testing.T) {
	defer func(n int) { maxExpiredRead = n }(maxExpiredRead)
	gone, kept := 0, 0
	packed := packedWorlds(t, 800, 0x7e1a, func(rng *rand.Rand, w *packedWorld) {
		maxExpiredRead = []int{200_000, 1}[w.seed/2%2]
		w.o.Targets, w.o.Replace = nil, nil // retention removes people only in a plan of everything
		w.f.cfg.Settings.Retention = 180 * day
		ageWorld(rng, w.f.st, w.f.cfg.Settings.Retention, 1+rng.IntN(2))
		exp, err := ExpiredOf(w.f.cfg, w.o, enrichBase(w.f.st))
		if err != nil {
			t.Fatalf("seed %d: %v", w.seed, err)
		}
		w.o.Expired = exp
	}, func(w packedWorld) {
		n := packedGoing(w.packed, w.o.Expired)
		if planOfEnrich(t, w.seed, w.f, w.o).compared && n > 0 {
			gone++
			kept += btoi(w.o.Expired.Kept)
		}
	})
	t.Logf("%d worlds packed their sketches beside retention; in %d planned in part, people packed go (%d read in the kept form)", packed, gone, kept)
	if packed < 200 || gone < 50 || kept < 20 {
		t.Fatalf("%d worlds packed, %d with people packed who go, %d of them in the kept form: the test no longer tests retention beside packed sketches", packed, gone, kept)
	}
}

// packedGoing counts the people of t whom retention removes (exp).
func packedGoing(t *state.CensusSketches, exp *Expired) int {
	going := map[string]bool{}
	for _, id := range exp.IDs.All() {
		going[id] = true
	}
	n := 0
	for i := range t.Len() {
		n += btoi(going[t.ID(i)])
	}
	return n
}

// TestPackedSketchesBesideATrack plans the worlds of packedWorlds with a
// track of the searches or of the people the first block enriched, some
// of whose people it read before (trackWorld), twice: over the whole
// state, and over what EnrichReadsOf names, the people read in sketch
// packed. Unless Build says it needs everyone, the plans must be the
// same, byte for byte: the track's people are read whole or in the
// track's sketch (trackReads), so none is met as a packed sketch but as
// the block's.
func TestPackedSketchesBesideATrack(t *testing.T) {
	met, reads := 0, 0
	var tr *config.Track
	packed := packedWorlds(t, 1600, 0x7ac7, func(rng *rand.Rand, w *packedWorld) {
		tr = trackWorld(rng, w.f, &w.o)
	}, func(w packedWorld) {
		if !planOfEnrich(t, w.seed, w.f, w.o).compared || !packedTracked(w.f, tr, w.packed) {
			return
		}
		met++
		got, _ := Build(w.f.cfg, w.f.st, w.o)
		if c := got.Change(tr.Address); c != nil && c.Action == Track {
			reads++
		}
	})
	t.Logf("%d worlds packed their sketches beside a track; in %d planned in part, the track's people are among them (%d reading some)", packed, met, reads)
	if packed < 400 || met < 150 || reads < 100 {
		t.Fatalf("%d worlds packed, %d whose track's people are packed, %d reading: the test no longer tests a track beside packed sketches", packed, met, reads)
	}
}

// trackWorld gives f a track, every 30 days, of its searches or, in a
// third of the worlds, of the people its first enrich block enriched;
// it read a third of the people with a page name 10 days ago.
func trackWorld(rng *rand.Rand, f *fixture, o *Options) *config.Track {
	tr := f.track("w", 30*day, trackFrom(rng, f)...)
	if o.Targets != nil {
		o.Targets = append(o.Targets, tr.Address)
	}
	for _, id := range sortedPeople(f.st) {
		if p := f.st.People[id]; p.Lead.PageName != "" && rng.IntN(3) == 0 {
			f.trackRead(tr.Address, id, t0.Add(-10*day), "CTO", p.Lead.Company, false)
		}
	}
	return tr
}

// trackFrom is a track's from: f's searches, or, in a third of the
// worlds, its first enrich block (the people it enriched).
func trackFrom(rng *rand.Rand, f *fixture) []string {
	if rng.IntN(3) == 0 {
		return []string{f.cfg.Enriches[0].Address}
	}
	var from []string
	for _, s := range f.cfg.Searches {
		from = append(from, s.Address)
	}
	return from
}

// packedTracked reports whether t holds someone of tr's sources' lists
// or of its record.
func packedTracked(f *fixture, tr *config.Track, t *state.CensusSketches) bool {
	listed := map[string]bool{}
	for _, ref := range tr.From {
		srcs := []string{ref}
		if e := f.cfg.Enrich(ref); e != nil {
			srcs = e.From
		}
		for _, addr := range f.cfg.Resolve(srcs) {
			if s := f.st.Searches[addr]; s != nil {
				for _, id := range s.LeadIDs {
					listed[id] = true
				}
			}
		}
	}
	for i := range t.Len() {
		if p := f.st.People[t.ID(i)]; listed[t.ID(i)] || p != nil && !p.Tracked[tr.Address].IsZero() {
			return true
		}
	}
	return false
}
