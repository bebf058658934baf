package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestReadsMakeTheSamePlan plans random worlds (randomWorld, some without
// the blocks that read people in bulk, many with an export: worldExport)
// with random targets, some of them tracks and the import, twice: over
// the whole state, and over what a store gives for ReadsOf through
// Reads.Read (the records, read without the searches' lead lists, then
// the lead lists of Reads.Searches and Reads.Sources, the people of
// Reads.Persons, of the sources' lead lists and of the tracks' records).
// The plans must be the same, byte for byte. A world whose plan reads
// every person goes through EnrichReadsOf too (samePlanOfEnrich). A plan
// whose tracks or import an exclude block by domain matches is given the
// store's company domains (Reads.ReadColleagues), without which some of
// those plans differ: a colleague's enrichment the plan does not read.
func TestReadsMakeTheSamePlan(t *testing.T) {
	useTestMatch(t)
	defer func(n int) { sheetRowLimit = n }(sheetRowLimit)
	partial, continued, enriched, tracks, imports, colleagues, paged, ofEnriched := 0, 0, 0, 0, 0, 0, 0, 0
	moved, sketched := 0, 0
	const worlds = 800
	for seed := range worlds {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x2ead))
		f, o := randomWorld(rng)
		if rng.IntN(3) == 0 {
			// Only searches and profiles: a whole plan reads no person.
			f.cfg.Enriches, f.cfg.Tracks, f.cfg.Exports, f.cfg.Imports = nil, nil, nil, nil
			o.Targets, o.Replace = nil, nil
		}
		if len(f.cfg.Imports) == 0 && rng.IntN(2) == 0 {
			im := worldImport(rng, f, 40) // some of the state's people, some not
			if len(f.cfg.Tracks) > 0 {
				t := f.cfg.Tracks[0] // watches the file's people
				t.From = append(t.From, im)
				if rng.IntN(2) == 0 {
					pageOnly(f.cfg.Imports[0], f.st)
				}
			}
		}
		if rng.IntN(3) != 0 {
			// A few rows a worksheet: the sheets of people are continued.
			sheetRowLimit = 2 + rng.IntN(20)
			worldExport(rng, f, &o)
		}
		if len(f.cfg.Profiles) > 0 && rng.IntN(2) == 0 {
			// A second block of a page read before shares its read while
			// its person is in the state.
			f.profile("profile.same", f.cfg.Profiles[0].PageName)
		}
		if rng.IntN(4) == 0 {
			pageLead(rng, f.st)
		}
		if rng.IntN(3) == 0 {
			worldExcludes(rng, f)
		}
		// Records kept where moved blocks move them from (a rng of
		// its own: the worlds are otherwise those before).
		mrng := rand.New(rand.NewPCG(uint64(seed), 0x30ed))
		if mrng.IntN(3) == 0 {
			moveWorld(t, mrng, f)
		}
		o.Targets = append(o.Targets, randomTargets(rng, f)...)
		if rng.IntN(3) != 0 {
			o.Targets = append(o.Targets, blockTargets(rng, f)...)
		}
		if CheckAddresses(f.cfg, f.st, o.Targets, o.Replace).HasErrors() {
			o.Targets = append(o.Targets, o.Replace...)
		}
		o, mv := movedOptions(t, seed, f, storedBase(f.st), o)
		r := ReadsOf(f.cfg, state.NewBase(f.st).Records, o)
		if r.People {
			enriched += samePlanOfEnrich(t, seed, f, o)
			continue
		}
		partial++
		if mv {
			moved++
		}
		b := storedBase(f.st)
		st, err := r.Read(b)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if asked := askedOf(f.st, r); len(st.People) > asked && len(st.People) < len(f.st.People) {
			t.Fatalf("seed %d: %d people read for %d asked", seed, len(st.People), asked)
		}
		if len(r.Pages) > 0 && len(st.People) < len(f.st.People) {
			paged++ // a file of page names read through the index of page keys
		}
		if unreadOf(st, f.st, r.EnrichedFrom) {
			ofEnriched++ // a track of the enriched: their sources not read whole
		}
		if sketchedIn(st, f.st) {
			sketched++ // the enriched read in sketch (state.TrackSketch)
		}
		col, err := r.ReadColleagues(b, f.cfg)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if col != nil {
			without, _ := Build(f.cfg, st, o)
			o.Colleagues = col
			if want, _ := Build(f.cfg, f.st, o); planJSON(t, without) != planJSON(t, want) {
				colleagues++ // the store's company domains decide it
			}
		}
		got, _ := Build(f.cfg, st, o)
		o.Colleagues, o.Moved = nil, nil // the whole state's moves are its own
		want, _ := Build(f.cfg, f.st, o)
		if c := want.Change("export.x"); c != nil && c.Continued != nil {
			continued++
		}
		for _, c := range want.Changes {
			if c.Kind == kind.Track && c.Action == Track {
				tracks++ // reads someone (due), some read before
			}
			if c.Kind == kind.Import && c.Action == Import {
				imports++
			}
		}
		if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
			t.Fatalf("seed %d (targets %q, replace %q, reads %+v): the plan over what ReadsOf names differs (-whole +read):\n%s",
				seed, o.Targets, o.Replace, r, d)
		}
	}
	t.Logf("%d of %d worlds planned from what ReadsOf names, %d of them an export of continued sheets; %d tracks read, %d imports run, %d decided by a colleague's domain, %d page names found by key, %d tracks of the enriched (%d read in sketch), %d with moves; %d from what EnrichReadsOf names",
		partial, worlds, continued, tracks, imports, colleagues, paged, ofEnriched, sketched, moved, enriched)
	if partial < 300 || continued < 100 || tracks < 100 || imports < 40 || colleagues < 5 || paged < 3 || ofEnriched < 20 || sketched < 3 || moved < 60 {
		t.Fatalf("only %d of 800 worlds planned without every person, %d with continued sheets, %d tracks read, %d imports run, %d decided by a colleague's domain, %d page names found by key, %d tracks of the enriched (%d in sketch), %d with moves: the test no longer tests ReadsOf",
			partial, continued, tracks, imports, colleagues, paged, ofEnriched, sketched, moved)
	}
}

// pageOnly makes a member of im whom st holds known by page name only
// (found by the page-name index of every person): the one fewest
// searches found, whom a track reads through the import alone.
func pageOnly(im *config.Import, st *state.State) {
	var pick *person.EnrichedProfile
	for i := range im.People {
		r := &im.People[i].Result
		if p := st.People[r.NetworkID]; p != nil && (pick == nil || len(p.FoundBy) < len(st.People[pick.NetworkID].FoundBy)) {
			pick = r
		}
	}
	if pick != nil {
		pick.NetworkID = ""
	}
}

// pageLead keeps a lead of a search by page name ("page:"), whose person
// st keeps under their network ID: the plan follows it to them
// (State.Person), which only every person's page names tell.
func pageLead(rng *rand.Rand, st *state.State) {
	for _, a := range slices.Sorted(maps.Keys(st.Searches)) {
		ids := st.Searches[a].LeadIDs
		if len(ids) == 0 || rng.IntN(2) == 0 {
			continue
		}
		if p := st.People[ids[0]]; p != nil && p.Lead.PageName != "" {
			ids[0] = state.PagePrefix + p.Lead.PageName
			return
		}
	}
}

// worldExcludes declares an exclude block by company of some people of
// f's state (a track counts them excluded), and sometimes one by company
// domain: a person of the state holds an enrichment of that domain, and
// another person a lead of their company, as does the import's first
// member (excluded as their colleagues).
func worldExcludes(rng *rand.Rand, f *fixture) {
	ids := sortedPeople(f.st)
	if len(ids) < 2 {
		return
	}
	var companies []string
	for range 3 {
		if c := f.st.People[ids[rng.IntN(len(ids))]].Lead.Company; c != "" {
			companies = append(companies, c)
		}
	}
	f.exclude("customers", listfile.Company, companies...)
	if rng.IntN(2) == 0 {
		a, b := ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))]
		if a == b || f.st.People[a].Lead.PageName == "" {
			return
		}
		f.st.People[a].Lead.Company = "Shared Co " + a
		f.st.People[b].Lead.Company = "Shared Co " + a
		f.enrichedWith(a, "enrich.gone", t0.Add(-day), "x@excluded.example", "excluded.example")
		f.exclude("domains", listfile.Domain, "excluded.example")
		for _, im := range f.cfg.Imports {
			im.People[0].Result.Company = "Shared Co " + a // a colleague too
		}
	}
}

// blockTargets are some of f's tracks and its import: planned without an
// enrich block, they read their people, not everyone (trackReads,
// importReads).
func blockTargets(rng *rand.Rand, f *fixture) []string {
	var out []string
	for _, t := range f.cfg.Tracks {
		if rng.IntN(3) > 0 {
			out = append(out, t.Address)
		}
	}
	for _, im := range f.cfg.Imports {
		if rng.IntN(2) == 0 {
			out = append(out, im.Address)
		}
	}
	return out
}

// askedOf is how many people r names: its persons, the leads of its
// sources, the people its tracks read before, those its page names find
// (some of them the same).
func askedOf(st *state.State, r Reads) int {
	n := len(r.Persons) + pagedOf(st, r) + enrichedOf(st, r)
	for _, a := range r.Sources {
		n += len(st.Searches[a].LeadIDs)
	}
	for _, a := range r.Tracks {
		ids, _ := memStore{st}.Tracked(a)
		n += len(ids)
	}
	return n
}

// worldExport declares export.x: one to three sheets of random sources
// (searches that ran and did not, blocks, a split search, profiles, the
// import, an enrich block), some a sheet of changes, written as a
// workbook mostly, sometimes as CSV; some worlds wrote it already, some
// target it.
func worldExport(rng *rand.Rand, f *fixture, o *Options) {
	var refs []string
	for _, s := range f.cfg.Searches {
		refs = append(refs, s.Address, blockOf(s.Address))
	}
	for _, p := range f.cfg.Profiles {
		refs = append(refs, p.Address)
	}
	for _, im := range f.cfg.Imports {
		refs = append(refs, im.Address)
	}
	for _, e := range f.cfg.Enriches {
		refs = append(refs, e.Address)
	}
	x := f.export("x", "out/x.xlsx")
	x.Sheets = nil
	for i := range 1 + rng.IntN(3) {
		sh := &config.Sheet{Name: fmt.Sprintf("S%d", i), Columns: config.DefaultColumns, Dedupe: true}
		for len(sh.From) == 0 {
			for _, r := range refs {
				if rng.IntN(3) == 0 {
					sh.From = append(sh.From, r)
				}
			}
		}
		if rng.IntN(5) == 0 {
			sh.Changes, sh.From = sh.From, nil
		}
		x.Sheets = append(x.Sheets, sh)
	}
	if rng.IntN(5) == 0 {
		x.Format, x.Path = "csv", "out/x.csv"
	}
	if rng.IntN(4) == 0 {
		f.wrote(x.Address)
		o.ExportRecord = func(a string) *ExportRecord { return f.records[a] }
	}
	if rng.IntN(2) == 0 {
		o.Targets = append(o.Targets, x.Address) // with its sources
	}
}

// randomTargets are none, or a few searches, profiles, imports and exports of f's
// configuration and state.
func randomTargets(rng *rand.Rand, f *fixture) []string {
	var pool []string
	for _, s := range f.cfg.Searches {
		pool = append(pool, s.Address, blockOf(s.Address))
	}
	for _, p := range f.cfg.Profiles {
		pool = append(pool, p.Address)
	}
	for _, im := range f.cfg.Imports {
		pool = append(pool, im.Address)
	}
	for _, x := range f.cfg.Exports {
		pool = append(pool, x.Address)
	}
	for a := range f.st.Searches {
		pool = append(pool, a)
	}
	slices.Sort(pool)
	pool = slices.Compact(pool)
	var out []string
	for range rng.IntN(3) {
		out = append(out, pool[rng.IntN(len(pool))])
	}
	return out
}

func planJSON(t *testing.T, p *Plan) string {
	t.Helper()
	b, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// storedBase is the Base a store gives of st: records read without the
// searches' lead lists (kept counts them) and people read by ID.
func storedBase(st *state.State) *state.Base {
	rec := *state.NewBase(st).Records
	rec.Searches = map[string]*state.Search{}
	kept := map[string]int{}
	for a, sr := range st.Searches {
		cp := *sr
		cp.LeadIDs = nil
		rec.Searches[a] = &cp
		kept[a] = len(sr.LeadIDs)
	}
	return state.NewStoredBase(&rec, kept, memStore{st})
}

// memStore answers a Base's questions from a state in memory, as a store
// answers them from its tables; what a plan never asks is an error.
type memStore struct{ st *state.State }

func (m memStore) Get(ids []string) ([]*state.Person, error) {
	var out []*state.Person
	for _, id := range ids {
		if p := m.st.People[id]; p != nil {
			out = append(out, p)
		}
	}
	return out, nil
}

func (m memStore) LeadIDs(addr string) ([]string, error) {
	return m.st.Searches[addr].LeadIDs, nil
}

// Tracked are the people holding a read of the track at addr.
func (m memStore) Tracked(addr string) ([]string, error) {
	var ids []string
	for id, p := range m.st.People {
		if _, ok := p.Tracked[addr]; ok {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// After reads up to n people whose IDs sort after id (Reads.Read reads
// every person this way when a lead ID kept by page name names nobody).
func (m memStore) After(id string, n int) ([]*state.Person, error) {
	var out []*state.Person
	for _, k := range slices.Sorted(maps.Keys(m.st.People)) {
		if k > id && len(out) < n {
			out = append(out, m.st.People[k])
		}
	}
	return out, nil
}

// CompanyDomains are the companies and domains of st's enrichments (of
// the domains keep keeps), as a store's query gives them (unsorted, a
// pair perhaps twice).
func (m memStore) CompanyDomains(keep func(string) bool) ([]state.CompanyDomain, error) {
	var out []state.CompanyDomain
	for _, id := range slices.Sorted(maps.Keys(m.st.People)) {
		p := m.st.People[id]
		if p.Enrichment == nil || p.Enrichment.Result.CompanyDomain == "" || (keep != nil && !keep(p.Enrichment.Result.CompanyDomain)) {
			continue
		}
		c := state.CompanyDomain{Company: p.Lead.Company, Domain: p.Enrichment.Result.CompanyDomain}
		if c.Company == "" {
			c.Company = p.Enrichment.Result.Company
		}
		out = append(out, c)
	}
	return out, nil
}

var errNotAsked = errors.New("a plan does not ask this")

func (memStore) Tracks() ([]string, error)                   { return nil, errNotAsked }
func (memStore) CountEnriched(string) (int, error)           { return 0, errNotAsked }
func (memStore) IDs(string, int) ([]string, error)           { return nil, errNotAsked }
func (memStore) Facts(*time.Time) (state.PeopleFacts, error) { return state.PeopleFacts{}, errNotAsked }
func (m memStore) Names() (state.Names, error)               { return state.NamesOf(m.st.People), nil }
func (memStore) Naming([]string) ([]string, error)           { return nil, errNotAsked }
func (memStore) Changed() ([]string, error)                  { return nil, errNotAsked }
func (memStore) Exist([]string) ([]string, error)            { return nil, errNotAsked }
func (memStore) Close() error                                { return nil }
