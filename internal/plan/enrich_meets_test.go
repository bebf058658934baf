package plan

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestEnrichReadsWithATrackOrAnImport plans worlds of enrich blocks
// EnrichReadsOf answers (one, or several in half of them: manyWorld; a
// where in some: whereAtLimit; other workspaces to copy from in some:
// reuseWorld), with a track (of the searches, or of the people the
// first block enriched), some of whose people it read before, and an
// import, which the track watches or not, of members by network ID, by
// page name only, and by a page name in other letters: planned together,
// the plan over what EnrichReadsOf names is the whole state's.
func TestEnrichReadsWithATrackOrAnImport(t *testing.T) {
	compared, tracked, imported, gives, many, where, reused := 0, 0, 0, 0, 0, 0, 0
	// 4659: a block collected once per attempt counted its people read
	// in sketch once per collection (blockPeople.sketched).
	for _, seed := range seedsAnd(600, 4659) {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x7ac4))
		f, o := meetWorld(rng)
		b := enrichBase(f.st)
		if _, _, ok, _ := EnrichReadsOf(f.cfg, b.Records, o, b); !ok {
			continue
		}
		var from []string
		for _, s := range f.cfg.Searches {
			from = append(from, s.Address)
		}
		if rng.IntN(3) == 0 {
			from = []string{f.cfg.Enriches[0].Address} // the people it enriched
		}
		tr := f.track("w", 30*day, from...)
		if rng.IntN(4) > 0 {
			im := worldImport(rng, f, 20)
			if rng.IntN(2) == 0 {
				tr.From = append(tr.From, im)
			}
			meetPages(rng, f)
		}
		if o.Targets != nil {
			o.Targets = append(o.Targets, blockTargets(rng, f)...)
		}
		for _, id := range sortedPeople(f.st) {
			if f.st.People[id].Lead.PageName != "" && rng.IntN(3) == 0 {
				f.trackRead(tr.Address, id, t0.Add(-10*day), "CTO", f.st.People[id].Lead.Company, false)
			}
		}
		planned := planOfEnrich(t, seed, f, o)
		if !planned.compared {
			continue
		}
		compared++
		many += btoi(len(selectedEnriches(f, o)) > 1)
		where += btoi(wheres(selectedEnriches(f, o)))
		reused += btoi(planned.reused)
		got, _ := Build(f.cfg, f.st, o)
		for _, c := range got.Changes {
			tracked += btoi(c.Kind == kind.Track && c.Action == Track)
			imported += btoi(c.Kind == kind.Import && c.Action == Import)
		}
		gives += btoi(got.Savings.Imported.People > 0)
	}
	t.Logf("%d worlds compared: %d tracks read, %d imports run, %d with e-mails imported; %d with several blocks, %d with a where, %d copying from another workspace",
		compared, tracked, imported, gives, many, where, reused)
	if compared < 150 || tracked < 50 || imported < 50 || gives < 20 || many < 60 || where < 30 || reused < 15 {
		t.Fatalf("%d worlds compared, %d tracks read, %d imports run, %d with e-mails imported, %d with several blocks, %d with a where, %d copying: the test no longer tests EnrichReadsOf with a track or an import",
			compared, tracked, imported, gives, many, where, reused)
	}
}

// meetWorld is a world of enrichWorld (one block), or, in half of the
// worlds, of manyWorld (several); a where on a block in a quarter
// (whereAtLimit), and other workspaces in half (reuseWorld).
func meetWorld(rng *rand.Rand) (*fixture, Options) {
	var f *fixture
	var o Options
	if rng.IntN(2) == 0 {
		f, o = enrichWorld(rng)
	} else {
		f, o, _ = manyWorld(rng)
	}
	if rng.IntN(4) == 0 {
		whereAtLimit(rng, f, &o)
	}
	reuseWorld(rng, f, &o)
	return f, o
}

// selectedEnriches are the enrich blocks of f the plan of o selects.
func selectedEnriches(f *fixture, o Options) []*config.Enrich {
	if o.Targets == nil {
		return f.cfg.Enriches
	}
	var out []*config.Enrich
	for _, e := range f.cfg.Enriches {
		if slices.Contains(o.Targets, e.Address) {
			out = append(out, e)
		}
	}
	return out
}

// meetPages makes members of the import known by page name only, or by
// their page name in upper case beside their network ID.
func meetPages(rng *rand.Rand, f *fixture) {
	im := f.cfg.Imports[len(f.cfg.Imports)-1]
	for i := range im.People {
		r := &im.People[i].Result
		if r.PageName == "" {
			continue
		}
		switch rng.IntN(4) {
		case 0:
			r.NetworkID = ""
		case 1:
			r.PageName = strings.ToUpper(r.PageName)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestEnrichReadsFindImportMembersByPageName: the worlds of
// TestEnrichReadsWithATrackOrAnImport narrowed to the case its random
// draws meet about once in a thousand: a targeted enrich block and
// import, not current, whose members are known by page name alone. The
// people those page names find must be read whole (meetImports' Pages):
// the import's e-mail goes to them.
func TestEnrichReadsFindImportMembersByPageName(t *testing.T) {
	compared := 0
	for seed := range 200 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x9a9e))
		f, o := enrichWorld(rng)
		im := worldImport(rng, f, 20)
		if f.st.Imports[im] != nil {
			f.cfg.Imports[len(f.cfg.Imports)-1].ListFile.Digest = "d2" // imported again
		}
		for i := range f.cfg.Imports[len(f.cfg.Imports)-1].People {
			if r := &f.cfg.Imports[len(f.cfg.Imports)-1].People[i].Result; r.PageName != "" {
				r.NetworkID = ""
			}
		}
		o.Targets = []string{f.cfg.Enriches[0].Address, im}
		if planOfEnrich(t, seed, f, o).compared {
			compared++
		}
	}
	if compared < 50 {
		t.Fatalf("%d worlds compared: the test no longer plans an import of page names beside an enrich block", compared)
	}
}

// seedsAnd are the seeds 0 to n-1, then extra: worlds a wider loop found
// failing, kept among the tested ones.
func seedsAnd(n int, extra ...int) []int {
	seeds := make([]int, 0, n+len(extra))
	for seed := range n {
		seeds = append(seeds, seed)
	}
	return append(seeds, extra...)
}

// TestPageKeptPeopleReadInPart: in the random worlds of
// TestEnrichReadsMakeTheSamePlan, the first source of the first block
// runs again with leads given without a network ID, whom the state keeps
// by page name ("page:"), plain people the plan does not read. The
// store finds them by that ID (pageRefs asks Absent), so the plan reads
// in part, byte for byte the whole state's; it needs everyone only when
// such an ID names nobody.
func TestPageKeptPeopleReadInPart(t *testing.T) {
	defer keepReadKnobs()()
	paged, everyone := 0, 0
	for seed := range 800 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0xe4c4))
		setReadKnobs(rng, seed)
		f, o := enrichWorld(rng)
		if !pageLeads(rand.New(rand.NewPCG(uint64(seed), 0x9a9e)), f) {
			continue
		}
		r := planOfEnrich(t, seed, f, o)
		if !r.compared {
			everyone++
			continue
		}
		paged++
	}
	t.Logf("%d worlds with people kept by page name planned in part, %d needed everyone", paged, everyone)
	// Needing everyone whenever such a person is not read: of 1,600
	// worlds, 416 in part, 1,008 needing everyone.
	if paged < 200 || everyone > paged/2 {
		t.Errorf("%d worlds with people kept by page name planned in part, %d needing everyone: pageRefs needs everyone", paged, everyone)
	}
}

// pageLeads runs the first source of f's first enrich block again, a
// search that ran, with its leads and a few given without a network ID
// (kept by page name); false when it is no such search.
func pageLeads(rng *rand.Rand, f *fixture) bool {
	addr := f.cfg.Resolve(f.cfg.Enriches[0].From)[0]
	sr := f.st.Searches[addr]
	if sr == nil || !strings.HasPrefix(addr, "search.") {
		return false
	}
	var s *config.Search
	for _, x := range f.cfg.Searches {
		if x.Address == addr {
			s = x
		}
	}
	ids := slices.Clone(sr.LeadIDs)
	leads := make([]person.Lead, 0, len(ids)+3)
	for _, id := range ids {
		if p := f.st.People[id]; p != nil {
			leads = append(leads, p.Lead)
		}
	}
	for i := range 1 + rng.IntN(3) {
		page := fmt.Sprintf("paged-%d", i)
		leads = append(leads, person.Lead{FirstName: "P", LastName: page, FullName: "P " + page, Title: "CTO", Company: "Co " + page, PageName: page, Location: "Berlin, Germany"})
	}
	f.ranLeads(s, sr.RanAt.Add(time.Minute), leads)
	return true
}

// ranLeads records a run of s at at that found leads.
func (f *fixture) ranLeads(s *config.Search, at time.Time, leads []person.Lead) {
	body, _ := json.Marshal(s.Request)
	f.apply(state.Event{At: at, Kind: state.EventSearch, Address: s.Address, Search: &state.SearchEvent{
		Generation: f.cfg.API.Generation, Request: body, RequestHash: state.RequestHash(f.cfg.API.Generation, body),
		Leads: leads, MaxResults: s.MaxResults,
	}})
}
